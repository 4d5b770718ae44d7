import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

const repoSkills = join(import.meta.dirname, "..", "..", "..", "skills");
// The seed's example configuration (seed 002, "Portable Agent Skills").
const seedConfig = `[options.skills.roots]
team = { base = "binding", name = "skills", path = "." }

[options.skills]
activate = ["team/evidence-review"]
`;

describe("pablo skills", () => {
  it("lists the skills of the configured roots, as in the seed's example", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", seedConfig);
    const { code, stdout } = await pablo(
      ["skills", "list", "--json", "--config", config, "--bind", `skills=${repoSkills}`],
      sandbox,
    );
    expect(code).toBe(0);
    const listed = JSON.parse(stdout) as { skills: Array<{ id: string }>; activated: string[] };
    expect(listed.skills.map((s) => s.id)).toContain("team/evidence-review");
    expect(listed.activated).toEqual(["team/evidence-review"]);
  });

  it("shows what a model would see, and the Skill tool is deferred in the catalog", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", seedConfig);
    const bind = ["--config", config, "--bind", `skills=${repoSkills}`];
    const shown = await pablo(["skills", "show", "team/evidence-review", ...bind], sandbox);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("# Evidence review");
    const tools = await pablo(["tools", "--json", ...bind], sandbox);
    const skill = (
      JSON.parse(tools.stdout) as { tools: Array<{ name: string; providerName: string; deferred: boolean }> }
    ).tools.find((t) => t.name === "skill.activate");
    expect(skill).toMatchObject({ providerName: "Skill", deferred: true });
    const without = await pablo(["tools", "--json"], sandbox);
    expect(without.stdout).not.toContain("skill.activate");
  });

  it("refuses a configuration whose activation names a skill that does not exist", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", seedConfig.replace("evidence-review", "no-such-skill"));
    const { code, stderr } = await pablo(
      ["tools", "--config", config, "--bind", `skills=${repoSkills}`],
      sandbox,
    );
    expect(code).toBe(2);
    expect(stderr).toContain("no-such-skill");
  });

  it("checks the first-party skills as valid and a broken skill as invalid with exit 1", async () => {
    const sandbox = useSandbox();
    const valid = await pablo(["skills", "check", repoSkills], sandbox);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toContain("4 valid, 0 invalid");
    const broken = sandbox.write("broken/Bad-Name/SKILL.md", "---\nname: Bad-Name\n---\nbody\n");
    const checked = await pablo(["skills", "check", join(broken, "..", ".."), "--json"], sandbox);
    expect(checked.code).toBe(1);
    expect((JSON.parse(checked.stdout) as { valid: boolean }).valid).toBe(false);
  });
});
