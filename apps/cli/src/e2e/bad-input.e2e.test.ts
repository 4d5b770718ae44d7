import { describe, expect, it } from "vitest";
import { USAGE } from "../usage.js";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

/**
 * Every command `pablo --help` lists, once with a bad argument and once with a configuration file
 * that cannot be used: each ends with a coded message (`[CODE]`) and exit 2, never a stack trace.
 */
const COMMANDS: ReadonlyArray<{ name: string; bad: string[]; config: string[]; readsConfig?: false }> = [
  { name: "run", bad: ["run"], config: ["run", "a task", "--model", "replay:none.json"] },
  { name: "tools", bad: ["tools", "--frobnicate"], config: ["tools"] },
  { name: "tools --delegate", bad: ["tools", "--delegate"], config: ["tools", "--delegate", "reader"] },
  {
    name: "call",
    bad: ["call", "fs_read", "--args", "{not json"],
    config: ["call", "fs_read", "--args", "{}"],
  },
  { name: "policy check", bad: ["policy", "lint"], config: ["policy", "check"] },
  { name: "audit show", bad: ["audit", "show", "--last", "-3"], config: ["audit", "show"] },
  { name: "review", bad: ["review", "rollback"], config: ["review", "list"] },
  { name: "skills list", bad: ["skills", "list", "extra"], config: ["skills", "list"] },
  { name: "skills show", bad: ["skills", "show"], config: ["skills", "show", "team/x"] },
  { name: "skills check", bad: ["skills", "check"], config: ["skills", "check", "."], readsConfig: false },
  { name: "mcp serve", bad: ["mcp", "serve", "--http", "port"], config: ["mcp", "serve"] },
  { name: "audit verify", bad: ["audit", "verify", "--frobnicate"], config: ["audit", "verify"] },
  { name: "audit replay", bad: ["audit", "replay"], config: ["audit", "replay", "--policy", "none.json"] },
  { name: "audit view", bad: ["audit", "view", "--port", "x"], config: ["audit", "view", "--out", "t.html"] },
  { name: "acp", bad: ["acp", "extra"], config: ["acp"] },
  { name: "a2a serve", bad: ["a2a", "serve", "--port", "x"], config: ["a2a", "serve"] },
  { name: "actions", bad: ["actions", "frobnicate"], config: ["actions", "list"] },
  {
    name: "plugin scaffold",
    bad: ["plugin", "scaffold"],
    config: ["plugin", "scaffold", "@acme/x"],
    readsConfig: false,
  },
  {
    name: "plugin check",
    bad: ["plugin", "check", ".", "two"],
    config: ["plugin", "check", "."],
    readsConfig: false,
  },
  {
    name: "plugin pack",
    bad: ["plugin", "pack", "--out"],
    config: ["plugin", "pack", "."],
    readsConfig: false,
  },
];

const BAD_CONFIGS: ReadonlyArray<[string, string, RegExp]> = [
  ["syntax", "[options.fs\nrevisions = 1\n", /\[CONFIG_SYNTAX\]$/m],
  ["unknown key", '[options.fs]\nrevisions = "explicit"\nfrobnicate = true\n', /\[[A-Z_]+\]$/m],
  ["wrong type", "[options.permission]\nmode = 7\n", /\[[A-Z_]+\]$/m],
];

describe("every command with bad input ends with a coded message and exit 2", () => {
  it("lists in --help every command this test covers", () => {
    for (const word of [
      "run",
      "tools",
      "call",
      "policy check",
      "audit show",
      "review",
      "skills",
      "mcp serve",
      "plugin",
    ]) {
      expect(USAGE).toContain(`pablo ${word}`);
    }
  });

  for (const command of COMMANDS) {
    it(`${command.name}: a bad argument`, async () => {
      const home = freshHome();
      const workspace = home.dir("project");
      const result = await runPablo(command.bad, { cwd: workspace, env: personEnv(home) });
      expectNoStackTrace(result.stderr);
      expect(result.stderr).toMatch(/^pablo: .+ \[[A-Z][A-Z0-9_]+\]$/m);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe("");
    });

    it(`${command.name}: an unusable configuration file`, async () => {
      const home = freshHome();
      const workspace = home.dir("project");
      for (const [what, text, pattern] of BAD_CONFIGS) {
        const config = home.write(`pablo/${what.replace(" ", "-")}.toml`, text);
        const result = await runPablo([...command.config, "--config", config], {
          cwd: workspace,
          env: personEnv(home),
        });
        expectNoStackTrace(result.stderr);
        // A command that reads no configuration refuses the flag instead of ignoring it.
        const expected = command.readsConfig === false ? /reads no configuration.* \[USAGE\]$/m : pattern;
        expect(result.stderr, `${command.name} with a ${what} error`).toMatch(expected);
        expect(result.code, `${command.name} with a ${what} error: ${result.stderr}`).toBe(2);
      }
    });
  }

  it("a command that fails on its own terms ends with a coded line and exit 1", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    home.write("project/notes.txt", "x");
    const env = personEnv(home);
    for (const [args, code] of [
      [["review", "rollback", "no-such-snapshot"], "NOT_FOUND"],
      [["plugin", "scaffold", "Bad Name"], "INVALID_PACKAGE_NAME"],
      [["plugin", "scaffold", "pablo-plugin-x", "--dir", "."], "DIRECTORY_NOT_EMPTY"],
      [["plugin", "scaffold", "pablo-plugin-x", "--dir", "notes.txt/sub"], "SCAFFOLD_FAILED"],
    ] as const) {
      const result = await runPablo(args, { cwd: workspace, env });
      expectNoStackTrace(result.stderr);
      expect(result.stderr, args.join(" ")).toMatch(new RegExp(`^pablo: .+ \\[${code}\\]\n$`));
      expect(result.code, args.join(" ")).toBe(1);
    }
  });

  it("a missing configuration file, a bad workspace and a bad binding are coded too", async () => {
    const home = freshHome();
    const workspace = home.dir("project");
    const env = personEnv(home);
    for (const [args, code] of [
      [["tools", "--config", "/nonexistent/deployment.toml"], "CONFIG_READ_FAILED"],
      [["tools", "--workspace", "/nonexistent/dir"], "CONFIG_INVALID_BINDING"],
      [["tools", "--bind", "no-equals-sign"], "CONFIG_INVALID_BINDING"],
      [["tools", "--permission", "yolo"], "USAGE"],
      [["tools", "--mode", "chaos"], "USAGE"],
      [["frobnicate"], "USAGE"],
    ] as const) {
      const result = await runPablo(args, { cwd: workspace, env });
      expectNoStackTrace(result.stderr);
      expect(result.stderr, args.join(" ")).toContain(`[${code}]`);
      expect(result.code, args.join(" ")).toBe(2);
    }
  });
});
