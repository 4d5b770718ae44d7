import { existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSkills } from "./check.js";
import { discoverSkills } from "./discover.js";
import { skillText, useTempDir, writeSkill } from "./test-support/temp.js";

/** Bytes this process has read through read(2) and friends so far (Linux). */
function bytesRead(): number {
  const line = readFileSync("/proc/self/io", "utf8")
    .split("\n")
    .find((l) => l.startsWith("rchar:"));
  return Number(line?.slice("rchar:".length));
}

/** A SKILL.md whose closing `---` line starts at byte `at` (before any BOM), padded with comments. */
function closingAt(at: number, eol: "\n" | "\r\n"): string {
  const head = `---${eol}name: padded${eol}description: Padded to put the closing line at ${at}.${eol}`;
  const room = at - Buffer.byteLength(head);
  const comment = room >= 2 + eol.length ? `#${" ".repeat(room - 1 - eol.length)}${eol}` : "";
  const text = `${head}${comment}`;
  if (Buffer.byteLength(text) !== at) throw new Error(`cannot place the closing line at ${at}`);
  return `${text}---${eol}Body.${eol}`;
}

describe("listing reads the frontmatter and nothing after it", () => {
  // Pablo's own reads show in /proc/self/io; each test file runs in its own process.
  it.runIf(existsSync("/proc/self/io"))(
    "reads a few KiB of a 64 MiB SKILL.md, which it lists with a SKILL_TOO_LARGE warning",
    async () => {
      const root = useTempDir();
      const file = join(writeSkill(root, "huge", skillText("huge", "Huge.", "Body.\n")), "SKILL.md");
      truncateSync(file, 64 * 1024 * 1024); // sparse: costs no disk
      await discoverSkills([{ name: "warm", dir: root }]); // loads whatever the first call loads
      const before = bytesRead();
      const discovery = await discoverSkills([{ name: "r", dir: root }]);
      const read = bytesRead() - before;
      expect(discovery.skills.map((s) => [s.id, s.bytes])).toEqual([["r/huge", 64 * 1024 * 1024]]);
      expect(discovery.diagnostics.map((d) => [d.severity, d.code])).toEqual([
        ["warning", "SKILL_TOO_LARGE"],
      ]);
      // The frontmatter is 38 bytes: one 4 KiB chunk, not the 64 KiB frontmatter bound, not the file.
      expect(read).toBeLessThan(16 * 1024);
      // check reads it as activation would: it never holds more than max_skill_bytes either.
      const report = await checkSkills(root);
      expect(report.results[0]?.diagnostics.map((d) => [d.severity, d.code])).toEqual([
        ["error", "SKILL_TOO_LARGE"],
      ]);
    },
  );

  // Closing lines that start just before, at and after the 4 KiB chunk bounds, so the line, its
  // CR or its LF is split between two reads.
  const offsets = [4090, 4092, 4093, 4094, 4095, 4096, 4097, 8189, 8190, 8191, 8192];
  const cases = offsets.flatMap((at) => [
    { at, eol: "\n" as const, name: "LF" },
    { at, eol: "\r\n" as const, name: "CRLF" },
  ]);
  it.each(cases)("finds a closing line at byte $at ($name) across a chunk bound", async ({ at, eol }) => {
    const root = useTempDir();
    // The body is not UTF-8: reading it would refuse the skill, so a clean load proves it was not.
    const text = Buffer.concat([Buffer.from(closingAt(at, eol)), Buffer.from([0xff, 0xfe])]);
    writeFileSync(join(writeSkill(root, "padded", ""), "SKILL.md"), text);
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.diagnostics).toEqual([]);
    expect(discovery.skills.map((s) => s.description)).toEqual([`Padded to put the closing line at ${at}.`]);
  });

  it.each([4094, 4095, 4096, 4097])(
    "refuses a closing line that is not exactly `---`, even when a chunk bound falls right after its dashes (%i)",
    async (at) => {
      const root = useTempDir();
      writeSkill(root, "padded", closingAt(at, "\n").replace(/\n---\nBody/, "\n---x\nBody"));
      const discovery = await discoverSkills([{ name: "r", dir: root }]);
      expect(discovery.skills).toEqual([]);
      expect(discovery.diagnostics.map((d) => d.code)).toEqual(["FRONTMATTER_NOT_CLOSED"]);
    },
  );

  it("reads an opening line longer than a chunk to its end before deciding", async () => {
    const root = useTempDir();
    writeSkill(root, "wide", `---${" ".repeat(6000)}\nname: wide\ndescription: d\n---\nBody.\n`);
    const discovery = await discoverSkills([{ name: "r", dir: root }]);
    expect(discovery.diagnostics).toEqual([]);
    expect(discovery.skills.map((s) => s.id)).toEqual(["r/wide"]);
  });
});
