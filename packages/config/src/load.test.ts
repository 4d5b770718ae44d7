import Type from "typebox";
import { describe, expect, it } from "vitest";
import { formatConfigError, parseDeployment } from "./index.js";

const ShellSection = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    commands: Type.Optional(
      Type.Object({ default: Type.Optional(Type.String()) }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);
const SkillsSection = Type.Object(
  {
    roots: Type.Optional(Type.Record(Type.String(), Type.String())),
    activate: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);
const sections = { shell: ShellSection, skills: SkillsSection };
const bindings = { skills: "/srv/skills", workspace: "/srv/work" };

describe("deployment.toml", () => {
  it("resolves binding paths and validates every section", () => {
    const text = `
[options.skills.roots]
team = { base = "binding", name = "skills", path = "." }
nested = { base = "binding", name = "skills", path = "team/sub" }

[options.skills]
activate = ["team/evidence-review"]
`;
    const result = parseDeployment(text, "deployment.toml", { sections, bindings });
    expect(result).toEqual({
      ok: true,
      value: {
        file: "deployment.toml",
        credentials: {},
        options: {
          skills: {
            roots: { team: "/srv/skills", nested: "/srv/skills/team/sub" },
            activate: ["team/evidence-review"],
          },
        },
      },
    });
  });

  it("names the file, line and key path of an unknown key, with a suggestion", () => {
    const text = `[options.shell]\nenabled = true\nenabeld = false\n`;
    const result = parseDeployment(text, "d.toml", { sections, bindings });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.errors.map(formatConfigError)).toEqual([
      'd.toml:3: options.shell.enabeld: unknown key "enabeld"; did you mean "enabled"? [CONFIG_UNKNOWN_KEY]',
    ]);
  });

  it("reports unknown sections and wrong types with their lines", () => {
    const text = `# deployment\n[options.shell]\nenabled = "yes"\n\n[options.teleport]\nspeed = 1\n`;
    const result = parseDeployment(text, "d.toml", { sections, bindings });
    if (result.ok) throw new Error("expected errors");
    const byKey = Object.fromEntries(result.errors.map((e) => [e.keyPath, [e.code, e.line]]));
    expect(byKey["options.shell.enabled"]).toEqual(["CONFIG_INVALID_VALUE", 3]);
    expect(byKey["options.teleport"]).toEqual(["CONFIG_UNKNOWN_KEY", 5]);
  });

  it("reports TOML syntax errors with their line", () => {
    const result = parseDeployment(`[options.shell]\nenabled = tru\n`, "d.toml", { sections, bindings });
    if (result.ok) throw new Error("expected errors");
    expect(result.errors[0]).toMatchObject({ code: "CONFIG_SYNTAX", line: 2 });
  });

  it("refuses a missing binding by name and never falls back to an ambient path", () => {
    const text = `[options.skills.roots]\nteam = { base = "binding", name = "skills", path = "." }\n`;
    const result = parseDeployment(text, "d.toml", { sections, bindings: {} });
    if (result.ok) throw new Error("expected errors");
    expect(result.errors[0]).toMatchObject({
      code: "CONFIG_MISSING_BINDING",
      line: 2,
      keyPath: "options.skills.roots.team",
    });
    expect(result.errors[0]?.message).toContain("--bind skills=DIR");
  });

  it("refuses binding paths that climb out of the binding or are absolute", () => {
    for (const path of ["..", "../etc", "a/../../b", "/etc"]) {
      const text = `[options.skills.roots]\nteam = { base = "binding", name = "skills", path = "${path}" }\n`;
      const result = parseDeployment(text, "d.toml", { sections, bindings });
      expect(result.ok, path).toBe(false);
      if (!result.ok) expect(result.errors[0]?.code).toBe("CONFIG_INVALID_BINDING");
    }
  });

  it("validates credentials and their sources", () => {
    const good = `[credentials.records]\nconsumer = "mcp.environment"\nsources = [{ kind = "environment", name = "RECORDS_TOKEN" }]\n`;
    expect(parseDeployment(good, "d.toml", { sections, bindings }).ok).toBe(true);
    const bad = `[credentials.records]\nconsumer = "mcp.environment"\nsources = [{ kind = "vault", name = "x" }]\n`;
    expect(parseDeployment(bad, "d.toml", { sections, bindings }).ok).toBe(false);
  });
});
