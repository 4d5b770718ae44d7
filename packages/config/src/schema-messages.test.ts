import Type from "typebox";
import { describe, expect, it } from "vitest";
import { formatConfigError, parseDeployment } from "./index.js";

// Shapes like the real sections': a literal union, a rule list, a union of a string and a table.
const Rule = Type.Object(
  {
    id: Type.String(),
    match: Type.Union([Type.Literal("prefix"), Type.Literal("exact")]),
  },
  { additionalProperties: false },
);
const sections = {
  shell: Type.Object(
    {
      shell: Type.Optional(Type.Union([Type.Literal("sh"), Type.Literal("bash")])),
      commands: Type.Optional(
        Type.Object({ allow: Type.Optional(Type.Array(Rule)) }, { additionalProperties: false }),
      ),
    },
    { additionalProperties: false },
  ),
  fs: Type.Object(
    {
      revisions: Type.Optional(
        Type.Union([Type.Literal("explicit"), Type.Literal("tracked"), Type.Literal("off")]),
      ),
      root: Type.Optional(
        Type.Union([
          Type.String(),
          Type.Object({ base: Type.String(), name: Type.String() }, { additionalProperties: false }),
        ]),
      ),
    },
    { additionalProperties: false },
  ),
};

function errorsOf(text: string): string[] {
  const result = parseDeployment(text, "d.toml", { sections, bindings: {} });
  return result.ok ? [] : result.errors.map(formatConfigError);
}

describe("schema errors say what is allowed", () => {
  it("names the literals of a union, with the value given, once per key", () => {
    const cases: Array<[string, string]> = [
      [
        '[options.shell.commands]\nallow = [{ id = "x", match = "prefixx" }]\n',
        'd.toml:2: options.shell.commands.allow.0.match: must be "prefix" or "exact" (got "prefixx") [CONFIG_INVALID_VALUE]',
      ],
      [
        '[options.shell]\nshell = "zsh"\n',
        'd.toml:2: options.shell.shell: must be "sh" or "bash" (got "zsh") [CONFIG_INVALID_VALUE]',
      ],
      [
        "[options.fs]\nrevisions = 3\n",
        'd.toml:2: options.fs.revisions: must be "explicit", "tracked" or "off" (got 3) [CONFIG_INVALID_VALUE]',
      ],
      [
        "[options.fs]\nroot = 7\n",
        "d.toml:2: options.fs.root: must be a string or a table with base, name (got 7) [CONFIG_INVALID_VALUE]",
      ],
    ];
    for (const [text, expected] of cases) expect(errorsOf(text), text).toEqual([expected]);
  });

  it("never says 'must match a schema in anyOf' for any wrong value of a union", () => {
    for (const value of ['"PREFIX"', "1", "true", '""', "[]", "{ a = 1 }"]) {
      const messages = errorsOf(`[options.shell.commands]\nallow = [{ id = "x", match = ${value} }]\n`);
      expect(messages, value).toHaveLength(1);
      expect(messages[0], value).not.toContain("anyOf");
      expect(messages[0], value).toContain('must be "prefix" or "exact"');
    }
  });
});
