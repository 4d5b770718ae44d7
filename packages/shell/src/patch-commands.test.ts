import { describe, expect, it } from "vitest";
import { parseCommandLine } from "./index.js";
import { lastPatchCommand, patchedNames, strippedName } from "./patch-commands.js";

const recognise = (line: string) => lastPatchCommand(line, parseCommandLine(line));

describe("recognising a patch command from the parsed line", () => {
  it.each([
    ["patch -p1 < fix.diff", { tool: "patch", strip: 1, patchFiles: ["fix.diff"] }],
    ["patch -p 2 -i fix.diff", { tool: "patch", strip: 2, patchFiles: ["fix.diff"] }],
    ["patch --strip=1 --input=fix.diff", { tool: "patch", strip: 1, patchFiles: ["fix.diff"] }],
    ["patch -d sub -p1 < ../x.diff", { tool: "patch", chdir: "sub", patchFiles: ["../x.diff"] }],
    ["patch file.txt fix.diff", { tool: "patch", target: "file.txt", patchFiles: ["fix.diff"] }],
    ["/usr/bin/patch -p1 < fix.diff", { tool: "patch" }],
    ["'pat''ch' -p1 < fix.diff", { tool: "patch" }],
    ["git apply fix.diff", { tool: "git apply", patchFiles: ["fix.diff"] }],
    [
      "git apply --check -p2 a.diff b.diff",
      { tool: "git apply", strip: 2, patchFiles: ["a.diff", "b.diff"] },
    ],
    [
      "git -C repo -c core.x=y apply --directory=lib x.diff",
      { tool: "git apply", chdir: "repo", prefix: "lib" },
    ],
    ["git --no-pager apply < x.diff", { tool: "git apply", patchFiles: ["x.diff"] }],
    ["cd sub && git apply ../x.diff", { tool: "git apply", patchFiles: ["../x.diff"] }],
    ["cat x.diff | git apply", { tool: "git apply", patchFiles: [], inline: undefined }],
    ["git apply <<'EOF'\n+++ b/a\nEOF", { tool: "git apply", inline: "+++ b/a\nEOF" }],
    ["apply_patch '*** Begin Patch'", { tool: "apply_patch" }],
    ["./tools/apply_patch <<EOF\nbody\nEOF", { tool: "apply_patch" }],
  ])("%j is %o", (line, expected) => {
    expect(recognise(line)).toMatchObject(expected);
  });

  it.each([
    "echo patch -p1",
    "grep 'git apply' notes.md",
    "git status",
    "git log --grep apply",
    "git stash apply",
    "patcher -p1",
    "git apply a.diff; ls",
    "git apply a.diff && npm test",
    "echo $(git apply x.diff)",
    "FOO=1 git apply x.diff",
    "sh -c 'git apply x.diff'",
    "# git apply x.diff",
    "",
  ])("%j is no patch command whose status is the line's", (line) => {
    expect(recognise(line)).toBeUndefined();
  });

  it("reports the words finished before an unproven construct as the partial command, never as proven", () => {
    const parsed = parseCommandLine("ls; patch -p1 < fix.diff");
    expect(parsed.commands.map((c) => c.words)).toEqual([["ls"]]);
    expect(parsed.partial?.words).toEqual(["patch", "-p1"]);
    expect(parseCommandLine("git apply fix$N.diff").partial?.words).toEqual(["git", "apply"]);
    expect(parseCommandLine("git status").partial).toBeUndefined();
  });
});

describe("the files a patch names", () => {
  it("reads unified headers (deletions by ---) and apply_patch's envelope, without /dev/null or timestamps", () => {
    const patch = [
      "diff --git a/x.ts b/x.ts",
      "--- a/x.ts\t2024-01-01 00:00:00",
      "+++ b/x.ts\t2024-01-01 00:00:01",
      "--- a/gone.ts",
      "+++ /dev/null",
      "--- /dev/null",
      '+++ "b/with space.ts"',
      "*** Update File: src/y.ts",
      "*** Move to: src/z.ts",
      "*** Add File: new.md",
      "*** Delete File: old.md",
    ].join("\n");
    expect(patchedNames(patch)).toEqual([
      "b/x.ts",
      "a/gone.ts",
      "b/with space.ts",
      "src/y.ts",
      "src/z.ts",
      "new.md",
      "old.md",
    ]);
  });

  it("strips -p components, or git's a/ and b/ when no -p is given", () => {
    expect(strippedName("b/src/x.ts", undefined)).toBe("src/x.ts");
    expect(strippedName("src/x.ts", undefined)).toBe("src/x.ts");
    expect(strippedName("b/src/x.ts", 0)).toBe("b/src/x.ts");
    expect(strippedName("b/src/x.ts", 2)).toBe("x.ts");
    expect(strippedName("x.ts", 3)).toBe("x.ts");
  });
});
