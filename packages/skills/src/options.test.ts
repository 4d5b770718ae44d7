import { findOpenObject } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_CONTEXT_BYTES, DEFAULT_MAX_SKILL_BYTES } from "./limits.js";
import { resolveSkillsOptions, SkillsOptionsSchema } from "./options.js";

describe("[options.skills]", () => {
  it("is a closed schema with a description on every field", () => {
    expect(findOpenObject(JSON.parse(JSON.stringify(SkillsOptionsSchema)))).toBeUndefined();
    for (const [key, field] of Object.entries(SkillsOptionsSchema.properties)) {
      expect((field as { description?: string }).description, key).toBeTruthy();
    }
  });

  it("defaults everything when absent: no roots, no activations, restriction off, the tool on", () => {
    expect(resolveSkillsOptions(undefined)).toEqual({
      ok: true,
      options: {
        roots: [],
        activate: [],
        maxContextBytes: DEFAULT_MAX_CONTEXT_BYTES,
        maxSkillBytes: DEFAULT_MAX_SKILL_BYTES,
        restrictToAllowedTools: false,
        tool: true,
        oversize: "refuse",
      },
    });
  });

  it("takes roots as the configuration loader resolves them, in table order", () => {
    const result = resolveSkillsOptions({
      roots: { team: "/srv/skills", shared: "/srv/shared" },
      activate: ["team/evidence-review"],
      max_context_bytes: 65536,
      restrict_to_allowed_tools: true,
    });
    expect(result).toMatchObject({
      ok: true,
      options: {
        roots: [
          { name: "team", dir: "/srv/skills" },
          { name: "shared", dir: "/srv/shared" },
        ],
        activate: ["team/evidence-review"],
        maxContextBytes: 65536,
        restrictToAllowedTools: true,
      },
    });
  });

  it("accepts the binding-reference form of deployment.toml, but not unresolved at resolution", () => {
    const raw = { roots: { team: { base: "binding", name: "skills", path: "." } } };
    expect(resolveSkillsOptions(raw)).toEqual({
      ok: false,
      issues: ["/roots/team: the binding reference skills:. was not resolved to a folder"],
    });
  });

  it("names what is wrong, by path", () => {
    const issues = (value: unknown) => {
      const result = resolveSkillsOptions(value);
      return result.ok ? [] : result.issues;
    };
    expect(issues({ activate: ["Team/Evidence"] })).toEqual([
      expect.stringMatching(/^\/activate\/0: must match pattern/),
    ]);
    expect(issues({ max_context_bytes: 0 })).toEqual(["/max_context_bytes: must be >= 1"]);
    expect(issues({ restrict: true })).toEqual([
      '/restrict: unknown key "restrict"; allowed here: roots, activate, max_context_bytes, max_skill_bytes, restrict_to_allowed_tools, tool, oversize',
    ]);
    expect(issues({ roots: { "a/b": "/x" } })).toEqual([
      '/roots/a~1b: unknown key "a/b"; a key here must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
    ]);
    expect(issues({ roots: { team: "relative" } })[0]).toBe('/roots/team: must match pattern "^/"');
  });
});
