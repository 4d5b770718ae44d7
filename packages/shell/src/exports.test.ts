import { describe, expect, it } from "vitest";
import * as shell from "./index.js";

describe("public API", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(shell).sort()).toMatchInlineSnapshot(`
      [
        "BWRAP_PATHS",
        "BubblewrapOptionsSchema",
        "CLEAN_PATH",
        "DEFAULT_MAX_COMMAND_LENGTH",
        "DEFAULT_MAX_OUTPUT_BYTES",
        "DEFAULT_SHELL_OPTIONS",
        "DEFAULT_SYSTEM_PATHS",
        "DEFAULT_TIMEOUT_MS",
        "DEFAULT_TRUNCATION",
        "GIT_HAZARD_OVERRIDES",
        "MAX_TIMEOUT_MS",
        "MIN_TIMEOUT_MS",
        "RUN_MARKER_VARIABLE",
        "SandboxOptionsSchema",
        "ShellCommandsSchema",
        "ShellOptionsErrorCode",
        "ShellOptionsSchema",
        "UNSHARE_PATHS",
        "cleanEnvironment",
        "commandAccesses",
        "commandRulesLayer",
        "containmentFor",
        "createShellTool",
        "endProcesses",
        "findShell",
        "isCompound",
        "localContainment",
        "parseCommandLine",
        "procProcessControl",
        "processGroupContainment",
        "resolveCommandWord",
        "resolveSandboxOptions",
        "resolveShellOptions",
        "runNamespace",
        "sandboxCapabilities",
        "shellCatalog",
        "stripAnsi",
        "truncateOutput",
      ]
    `);
  });
});
