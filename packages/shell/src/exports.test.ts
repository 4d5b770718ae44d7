import { describe, expect, it } from "vitest";
import * as shell from "./index.js";

describe("public API", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(shell).sort()).toMatchInlineSnapshot(`
      [
        "CLEAN_PATH",
        "DEFAULT_MAX_COMMAND_LENGTH",
        "DEFAULT_MAX_OUTPUT_BYTES",
        "DEFAULT_SHELL_OPTIONS",
        "DEFAULT_TRUNCATION",
        "GIT_HAZARD_OVERRIDES",
        "RUN_MARKER_VARIABLE",
        "ShellCommandsSchema",
        "ShellOptionsSchema",
        "cleanEnvironment",
        "commandAccesses",
        "commandRulesLayer",
        "createShellTool",
        "findShell",
        "isCompound",
        "parseCommandLine",
        "procProcessControl",
        "resolveCommandWord",
        "resolveShellOptions",
        "shellCatalog",
        "stripAnsi",
        "truncateOutput",
      ]
    `);
  });
});
