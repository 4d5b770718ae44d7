import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findShell, parseCommandLine } from "./index.js";
import { useWorkspace } from "./test-support/workspace.js";

describe("parseCommandLine", () => {
  it("splits lists and pipelines into simple commands with their operators", () => {
    const parsed = parseCommandLine("git status && ls -la | wc -l ; echo 'a b'\n  true || false");
    expect(parsed.unproven).toBeUndefined();
    expect(parsed.commands.map((c) => c.words)).toEqual([
      ["git", "status"],
      ["ls", "-la"],
      ["wc", "-l"],
      ["echo", "a b"],
      ["true"],
      ["false"],
    ]);
    expect(parsed.operators).toEqual(["&&", "|", ";", "newline", "||"]);
  });

  it("removes quotes the way POSIX sh does", () => {
    const words = (line: string) => parseCommandLine(line).commands[0]?.words;
    expect(words(`'g''it' "st"at\\us`)).toEqual(["git", "status"]);
    expect(words(`echo "a\\"b" 'c\\d' "e\\f" "g\\\\h" "\\$x"`)).toEqual([
      "echo",
      'a"b',
      "c\\d",
      "e\\f",
      "g\\h",
      "$x",
    ]);
    expect(words(`echo '' "" x`)).toEqual(["echo", "", "", "x"]);
    expect(words("echo a\\\nb")).toEqual(["echo", "ab"]);
    expect(words(`echo "line\nbreak"`)).toEqual(["echo", "line\nbreak"]);
    expect(words("echo a#b HEAD~1 x=y -")).toEqual(["echo", "a#b", "HEAD~1", "x=y", "-"]);
  });

  it("reports the first construct it cannot prove, with its offset, and keeps the commands before it", () => {
    const parsed = parseCommandLine("git status; echo $(id); ls *");
    expect(parsed.unproven).toEqual({ construct: "command substitution", offset: 17 });
    expect(parsed.commands.map((c) => c.words)).toEqual([["git", "status"]]);
  });

  it("refuses a line over the configured length without reading it", () => {
    expect(parseCommandLine("echo 12345", { maxLength: 9 }).unproven?.construct).toBe(
      "command longer than 9 characters",
    );
    expect(parseCommandLine("echo 1234", { maxLength: 9 }).unproven).toBeUndefined();
  });

  it("accepts an empty or blank line as no command at all", () => {
    expect(parseCommandLine("")).toEqual({ commands: [], operators: [] });
    expect(parseCommandLine(" \t\n ")).toEqual({ commands: [], operators: [] });
  });

  it("never throws and never reports an empty command word as proven, whatever the input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (line) => {
        const parsed = parseCommandLine(line);
        for (const command of parsed.commands) expect(command.words.length).toBeGreaterThan(0);
        expect(parsed.operators.length).toBe(Math.max(0, parsed.commands.length - 1));
      }),
      { numRuns: 2000 },
    );
  });

  it("finds an unproven construct in every line that holds a dynamic character outside quotes", () => {
    const dynamic = fc.constantFrom("$", "`", "*", "?", "[", "<", ">", "(", ")", "{", "}", "&", "#x");
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]{1,6}$/),
        dynamic,
        fc.stringMatching(/^[a-z]{0,4}$/),
        (a, d, b) => {
          const parsed = parseCommandLine(`echo ${a} ${d}${b}`);
          expect(parsed.unproven).toBeDefined();
        },
      ),
    );
  });
});

// Words the parser proves must be exactly the argv the real shell passes. A script that prints
// its arguments NUL-terminated stands in as the command word; lines join several commands.
describe("agreement with the real shells", () => {
  const token = fc.oneof(
    fc.stringMatching(/^[a-zA-Z0-9_.,:=+%@^/-]{1,8}$/),
    fc.stringMatching(/^[a-z $;|&"\\*?<>(){}#~`-]{0,8}$/).map((s) => `'${s}'`),
    fc.stringMatching(/^[a-z '$`"\\;|&*-]{0,8}$/).map((s) => `"${s.replace(/[$`"\\]/g, (c) => `\\${c}`)}"`),
    fc.stringMatching(/^[a-z]{0,3}\\[ a-z;&|*?$'"]{1}[a-z]{0,3}$/),
    fc.constantFrom('"\\a"', "a\\\nb", "'x'\"y\"z", "\\\\", "''", '""', "a=b", "x~y", '"#"'),
  );
  const command = fc
    .array(token, { minLength: 0, maxLength: 5 })
    .map((words) => ["./argv", ...words].join(" "));
  const line = fc
    .tuple(command, fc.array(fc.tuple(fc.constantFrom(" ; ", " && ", "\n", ";"), command), { maxLength: 2 }))
    .map(([first, rest]) => first + rest.map(([op, c]) => op + c).join(""));

  for (const id of ["sh", "bash"] as const) {
    const shell = findShell(id);
    it(`${id}: every proven line runs with exactly the parsed words`, () => {
      expect(shell).toBeDefined();
      const workspace = useWorkspace();
      writeFileSync(`${workspace}/argv`, "#!/bin/sh\nfor a; do printf '%s\\0' \"$a\"; done\nprintf '\\1'\n");
      chmodSync(`${workspace}/argv`, 0o755);
      fc.assert(
        fc.property(line, (text) => {
          const parsed = parseCommandLine(text);
          expect(parsed.unproven).toBeUndefined();
          const out = execFileSync(shell?.path ?? "", [...(shell?.args ?? []), text], {
            cwd: workspace,
            env: { PATH: "/usr/bin:/bin" },
            encoding: "utf8",
          });
          const perCommand = out.split("\u0001").slice(0, -1);
          const expected = parsed.commands.map((c) =>
            c.words
              .slice(1)
              .map((w) => `${w}\0`)
              .join(""),
          );
          expect(perCommand).toEqual(expected);
        }),
        { numRuns: 40 },
      );
    });
  }
});
