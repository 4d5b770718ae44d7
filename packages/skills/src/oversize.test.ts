import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCatalog, createKernel, MemoryAuditSink } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { activateSkills, readActivation, showSkill } from "./activate.js";
import { discoverSkills } from "./discover.js";
import { createSkillTool } from "./skill-tool.js";
import { FIXTURES, skillText, useTempDir, writeSkill } from "./test-support/temp.js";
import type { Discovery, SkillSummary } from "./types.js";

const ROOT = join(FIXTURES, "failures/oversize");
const FILE = join(ROOT, "oversize/SKILL.md");
const BYTES = readFileSync(FILE);
const BODY_START = BYTES.indexOf("\n---\n") + 5;

async function oversized(maxSkillBytes: number): Promise<{ discovery: Discovery; skill: SkillSummary }> {
  const discovery = await discoverSkills([{ name: "f", dir: ROOT }], { maxSkillBytes });
  const skill = discovery.skills[0];
  if (!skill) throw new Error(JSON.stringify(discovery.diagnostics));
  return { discovery, skill };
}

describe("activating a SKILL.md over max_skill_bytes", () => {
  it.each([
    { oversize: undefined, as: "refused by default" },
    { oversize: "refuse" as const, as: "refused" },
  ])("is $as with SKILL_TOO_LARGE, naming the size and the limit", async ({ oversize }) => {
    const { discovery } = await oversized(2048);
    const activation = await activateSkills(["f/oversize"], discovery, {
      maxSkillBytes: 2048,
      ...(oversize ? { oversize } : {}),
    });
    expect(activation.context).toEqual([]);
    expect(activation.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "SKILL_TOO_LARGE",
        path: FILE,
        skill: "f/oversize",
        message: "SKILL.md is 3397 bytes; the limit (max_skill_bytes) is 2048 bytes",
      }),
    ]);
  });

  // Bounds from inside the body, some of which fall inside a two-byte "é".
  const bounds = Array.from({ length: 24 }, (_, i) => 2050 + i);
  it("has bounds in its table that fall inside a character, and bounds that do not", () => {
    const splits = bounds.filter((b) => (BYTES[b] as number) >> 6 === 0b10);
    expect(splits.length).toBeGreaterThan(0);
    expect(splits.length).toBeLessThan(bounds.length);
  });
  it.each(bounds)(
    "with oversize = truncate and a bound of %i bytes, is cut there with a marker line",
    async (bound) => {
      const { discovery } = await oversized(bound);
      const activation = await activateSkills(["f/oversize"], discovery, {
        maxSkillBytes: bound,
        oversize: "truncate",
      });
      const [skill] = activation.context;
      if (!skill) throw new Error(JSON.stringify(activation.diagnostics));
      const kept = skill.truncated?.keptBytes ?? -1;
      // Cut at the bound, or one byte before it where the bound splits a character.
      expect(kept === bound || (kept === bound - 1 && (BYTES[bound] as number) >> 6 === 0b10)).toBe(true);
      expect(skill.truncated).toEqual({ keptBytes: kept, totalBytes: 3397 });
      const marker = `…[skill truncated at ${kept} bytes of 3397]`;
      const original = BYTES.subarray(BODY_START, kept).toString("utf8");
      expect(skill.instructions).toBe(`${original}${original.endsWith("\n") ? "" : "\n"}${marker}\n`);
      expect(skill.instructionBytes).toBe(Buffer.byteLength(skill.instructions));
      expect(activation.diagnostics).toEqual([
        expect.objectContaining({
          severity: "warning",
          code: "SKILL_TRUNCATED",
          path: FILE,
          skill: "f/oversize",
        }),
      ]);
      expect(activation.usedBytes).toBe(skill.instructionBytes);
    },
  );

  it("is not cut when it fits, whatever oversize says", async () => {
    const { discovery } = await oversized(4096);
    const activation = await activateSkills(["f/oversize"], discovery, {
      maxSkillBytes: 4096,
      oversize: "truncate",
    });
    expect(activation.diagnostics).toEqual([]);
    expect(activation.context[0]?.truncated).toBeUndefined();
    expect(activation.context[0]?.instructions).toBe(BYTES.subarray(BODY_START).toString("utf8"));
  });

  it("is refused even with truncate when its frontmatter does not fit in the bound", async () => {
    const { skill } = await oversized(64);
    const read = await readActivation(skill, { maxSkillBytes: 64, oversize: "truncate" });
    expect(read).toEqual({
      diagnostics: [
        expect.objectContaining({
          code: "SKILL_TOO_LARGE",
          message: expect.stringContaining(
            "its frontmatter does not close within the limit, so it cannot be truncated",
          ),
        }),
      ],
    });
  });

  it("is refused with INVALID_UTF8 when the kept bytes are not UTF-8, rather than cut into text", async () => {
    const root = useTempDir();
    const broken = Buffer.concat([
      Buffer.from(skillText("broken", "d", "ok\n")),
      Buffer.from([0xff]),
      Buffer.alloc(4000, 0x61),
    ]);
    writeFileSync(join(writeSkill(root, "broken", ""), "SKILL.md"), broken);
    const discovery = await discoverSkills([{ name: "r", dir: root }], { maxSkillBytes: 2048 });
    const activation = await activateSkills(["r/broken"], discovery, {
      maxSkillBytes: 2048,
      oversize: "truncate",
    });
    expect(activation.diagnostics.map((d) => [d.code, d.line])).toEqual([["INVALID_UTF8", 6]]);
  });

  it("is shown cut by `pablo skills show` with the warning, when the deployment truncates", async () => {
    const { discovery } = await oversized(2048);
    const shown = await showSkill("oversize", discovery, { maxSkillBytes: 2048, oversize: "truncate" });
    expect(shown.skill?.instructions).toMatch(/\n…\[skill truncated at 2048 bytes of 3397\]\n$/);
    expect(shown.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ["warning", "SKILL_TOO_LARGE"],
      ["warning", "SKILL_TRUNCATED"],
    ]);
    const refused = await showSkill("oversize", discovery, { maxSkillBytes: 2048 });
    expect(refused.skill).toBeUndefined();
    expect(refused.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ["warning", "SKILL_TOO_LARGE"],
      ["error", "SKILL_TOO_LARGE"],
    ]);
  });
});

describe("the Skill tool and an oversized skill", () => {
  async function call(oversize: "refuse" | "truncate") {
    const { discovery } = await oversized(2048);
    const audit = new MemoryAuditSink();
    const tool = createSkillTool({ skills: discovery.skills, maxSkillBytes: 2048, oversize });
    const session = createKernel({ audit }).openSession({
      catalog: createCatalog([tool]),
      permission: { mode: "ask" },
    });
    const { result } = await session.call({ tool: "Skill", args: { name: "f/oversize" } });
    return { result, notes: audit.records[0]?.notes };
  }

  it("refuses it as LIMIT_EXCEEDED by default", async () => {
    const { result } = await call("refuse");
    expect(result).toMatchObject({ ok: false, error: { code: "LIMIT_EXCEEDED" } });
  });

  it("returns it cut, and says so in the result and in the audit notes, when the deployment truncates", async () => {
    const { result, notes } = await call("truncate");
    if (!result.ok) throw new Error(JSON.stringify(result));
    const data = result.data as {
      instructions: string;
      truncated: { keptBytes: number; totalBytes: number };
    };
    expect(data.truncated).toEqual({ keptBytes: 2048, totalBytes: 3397 });
    expect(
      data.instructions.endsWith(`\n…[skill truncated at ${data.truncated.keptBytes} bytes of 3397]\n`),
    ).toBe(true);
    expect(notes).toMatchObject({ skill: "f/oversize", truncatedAtBytes: data.truncated.keptBytes });
  });
});
