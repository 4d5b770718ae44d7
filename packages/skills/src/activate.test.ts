import { createHash } from "node:crypto";
import { readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineLayer } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { activateSkills, showSkill } from "./activate.js";
import { discoverSkills } from "./discover.js";
import { skillText, useTempDir, writeSkill } from "./test-support/temp.js";

async function setup(bodies: Record<string, string>) {
  const root = useTempDir();
  for (const [name, body] of Object.entries(bodies))
    writeSkill(root, name, skillText(name, `The ${name} skill.`, body));
  const discovery = await discoverSkills([{ name: "team", dir: root }]);
  return { root, discovery };
}

describe("activation", () => {
  it("reads complete instructions in the order asked, with the hash of the bytes read", async () => {
    const { root, discovery } = await setup({ alpha: "Alpha steps.\n", beta: "Beta steps.\n" });
    const activation = await activateSkills(["team/beta", "alpha"], discovery, { maxContextBytes: 1000 });
    expect(activation.diagnostics).toEqual([]);
    expect(activation.context.map((s) => [s.id, s.instructions, s.instructionBytes])).toEqual([
      ["team/beta", "Beta steps.\n", 12],
      ["team/alpha", "Alpha steps.\n", 13],
    ]);
    const bytes = readFileSync(join(root, "beta", "SKILL.md"));
    expect(activation.context[0]?.contentHash).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(activation.usedBytes).toBe(25);
  });

  it("says clearly when a skill would not fit, and still activates the ones that do", async () => {
    const { discovery } = await setup({
      big: "b".repeat(600),
      small: "s".repeat(100),
      other: "o".repeat(350),
    });
    const activation = await activateSkills(["team/other", "team/big", "team/small"], discovery, {
      maxContextBytes: 500,
    });
    expect(activation.context.map((s) => s.id)).toEqual(["team/other", "team/small"]);
    expect(activation.diagnostics).toEqual([
      expect.objectContaining({
        severity: "error",
        code: "CONTEXT_FULL",
        skill: "team/big",
        message:
          "team/big needs 600 bytes of context but only 150 of max_context_bytes 500 remain (already active: team/other)",
      }),
    ]);
    expect(activation.usedBytes).toBe(450);
  });

  it("counts skills already in the context and does not add one twice", async () => {
    const { discovery } = await setup({ alpha: "a".repeat(300), beta: "b".repeat(300) });
    const first = await activateSkills(["team/alpha"], discovery, { maxContextBytes: 500 });
    const second = await activateSkills(["team/alpha", "team/beta"], discovery, {
      maxContextBytes: 500,
      alreadyActive: first.context,
    });
    expect(second.context).toEqual([]);
    expect(second.diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ["warning", "DUPLICATE_ACTIVATION"],
      ["error", "CONTEXT_FULL"],
    ]);
  });

  it("reports an unknown skill with similar ids", async () => {
    const { discovery } = await setup({ "evidence-review": "x" });
    const activation = await activateSkills(["team/evidence-reviews"], discovery);
    expect(activation.diagnostics).toEqual([
      expect.objectContaining({
        code: "SKILL_NOT_FOUND",
        message: expect.stringContaining("similar: team/evidence-review"),
      }),
    ]);
  });

  it("consults authority layers over the skill and the file it reads", async () => {
    const { root, discovery } = await setup({ alpha: "a", beta: "b" });
    const skillLayer = defineLayer({
      id: "deployment",
      skill: { allow: [{ id: "only-alpha", match: "team/alpha" }] },
    });
    const bySkill = await activateSkills(["team/alpha", "team/beta"], discovery, { layers: [skillLayer] });
    expect(bySkill.context.map((s) => s.id)).toEqual(["team/alpha"]);
    expect(bySkill.diagnostics).toEqual([
      expect.objectContaining({
        code: "SKILL_DENIED",
        skill: "team/beta",
        message: expect.stringContaining("deployment/default"),
      }),
    ]);
    const readLayer = defineLayer({
      id: "ceiling",
      "fs.read": { deny: [{ id: "no-beta", path: join(root, "beta") }] },
    });
    const byPath = await activateSkills(["team/alpha", "team/beta"], discovery, { layers: [readLayer] });
    expect(byPath.diagnostics).toEqual([
      expect.objectContaining({ code: "SKILL_DENIED", message: expect.stringContaining("ceiling/no-beta") }),
    ]);
  });

  it("validates again at activation: a SKILL.md replaced by a link after discovery is refused", async () => {
    const { root, discovery } = await setup({ alpha: "a" });
    const outside = join(useTempDir(), "secret.md");
    writeFileSync(outside, skillText("alpha", "Looks the same.", "SECRET CONTENT\n"));
    rmSync(join(root, "alpha", "SKILL.md"));
    symlinkSync(outside, join(root, "alpha", "SKILL.md"));
    const activation = await activateSkills(["team/alpha"], discovery);
    expect(activation.context).toEqual([]);
    expect(activation.diagnostics.map((d) => d.code)).toEqual(["SYMLINK_REFUSED"]);
  });

  it("validates again at activation: a package folder swapped for a link is refused", async () => {
    const { root, discovery } = await setup({ alpha: "a" });
    const outside = writeSkill(useTempDir(), "alpha", skillText("alpha", "d", "SECRET CONTENT\n"));
    renameSync(join(root, "alpha"), join(root, "alpha-old"));
    symlinkSync(outside, join(root, "alpha"));
    const activation = await activateSkills(["team/alpha"], discovery);
    expect(activation.diagnostics.map((d) => d.code)).toEqual(["SYMLINK_REFUSED"]);
  });

  it("validates again at activation: a frontmatter edited into an invalid one is refused", async () => {
    const { root, discovery } = await setup({ alpha: "a" });
    writeFileSync(join(root, "alpha", "SKILL.md"), skillText("Alpha"));
    const activation = await activateSkills(["team/alpha"], discovery);
    expect(activation.diagnostics.map((d) => d.code)).toEqual(["NAME_UPPERCASE", "NAME_MISMATCH"]);
  });
});

describe("show", () => {
  it("reads one skill in full with what discovery said about it, or explains why it does not load", async () => {
    const root = useTempDir();
    writeSkill(root, "alpha", "---\nname: alpha\ndescription: d\nmodel: opus\n---\nAlpha.\n");
    writeSkill(root, "beta", skillText("Beta"));
    const discovery = await discoverSkills([{ name: "team", dir: root }]);
    const shown = await showSkill("alpha", discovery);
    expect(shown.skill).toMatchObject({
      id: "team/alpha",
      instructions: "Alpha.\n",
      otherFields: { model: "opus" },
    });
    expect(shown.diagnostics.map((d) => d.code)).toEqual(["UNKNOWN_FIELD"]);
    const broken = await showSkill("team/beta", discovery);
    expect(broken.skill).toBeUndefined();
    expect(broken.diagnostics.map((d) => d.code)).toEqual(["NAME_UPPERCASE", "NAME_MISMATCH"]);
    expect((await showSkill("gamma", discovery)).diagnostics.map((d) => d.code)).toEqual(["SKILL_NOT_FOUND"]);
  });
});
