import { describe, expect, it } from "vitest";
import { commandRulesLayer, DEFAULT_SHELL_OPTIONS, resolveShellOptions, type ShellOptions } from "./index.js";

// The `[options.shell]` example of seed 000, as a TOML parser hands it over.
const seedExample: ShellOptions = {
  enabled: true,
  commands: {
    default: "deny",
    allow: [
      { id: "docs.git-status", executable: "/usr/bin/git", args: ["status"], match: "prefix" },
      { id: "docs.wc", executable: "/usr/bin/wc", args: [], match: "prefix" },
    ],
    deny: [{ id: "docs.no-force", executable: "/usr/bin/git", args: ["push", "--force"], match: "exact" }],
  },
};

describe("[options.shell]", () => {
  it("applies the documented defaults: sh, 60 s timeout, 15 min deadline, 200 lines, 16,000 characters", () => {
    expect(resolveShellOptions()).toEqual(DEFAULT_SHELL_OPTIONS);
    expect(DEFAULT_SHELL_OPTIONS).toMatchObject({
      shell: "sh",
      defaultTimeoutMs: 60_000,
      deadlineMs: 900_000,
      compound: "allow",
      maxLines: 200,
      maxChars: 16_000,
    });
  });

  it("accepts the seed's deployment example and turns its rules into a kernel layer unchanged", () => {
    expect(resolveShellOptions(seedExample).enabled).toBe(true);
    const layer = commandRulesLayer("deployment", seedExample.commands);
    expect(layer.command).toEqual(seedExample.commands);
    expect(commandRulesLayer("empty", undefined).command).toBeUndefined();
  });

  it("refuses unknown fields, wrong types and a default timeout above the deadline", () => {
    expect(() => resolveShellOptions({ shell: "zsh" } as unknown as ShellOptions)).toThrow(
      /options\.shell\/shell/,
    );
    expect(() => resolveShellOptions({ unknown: 1 } as unknown as ShellOptions)).toThrow(
      /INVALID|options\.shell/,
    );
    expect(() => resolveShellOptions({ deadline_ms: 1_000, default_timeout_ms: 2_000 })).toThrow(
      /exceeds deadline_ms/,
    );
    expect(resolveShellOptions({ deadline_ms: 1_000 }).defaultTimeoutMs).toBe(1_000);
  });
});
