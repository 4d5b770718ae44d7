import { chmodSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PabloError } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import {
  commandRulesLayer,
  DEFAULT_SHELL_OPTIONS,
  resolveShellOptions,
  type ShellOptions,
  ShellOptionsErrorCode,
} from "./index.js";
import { useWorkspace } from "./test-support/workspace.js";

/** The PabloError `resolveShellOptions` throws for `options`, or undefined. */
function refusal(options: unknown): PabloError | undefined {
  try {
    resolveShellOptions(options as ShellOptions);
    return undefined;
  } catch (error) {
    if (error instanceof PabloError) return error;
    throw error;
  }
}

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

  it("keeps every timeout within 1 s to 300 s and the smaller of 300 s and the deadline as the largest", () => {
    expect(DEFAULT_SHELL_OPTIONS.maxTimeoutMs).toBe(300_000);
    expect(resolveShellOptions({ deadline_ms: 120_000 })).toMatchObject({
      deadlineMs: 120_000,
      maxTimeoutMs: 120_000,
      defaultTimeoutMs: 60_000,
    });
    expect(resolveShellOptions({ deadline_ms: 30_000 })).toMatchObject({
      maxTimeoutMs: 30_000,
      defaultTimeoutMs: 30_000,
    });
    expect(resolveShellOptions({ default_timeout_ms: 300_000 }).defaultTimeoutMs).toBe(300_000);
    for (const options of [
      { default_timeout_ms: 999 },
      { default_timeout_ms: 300_001 },
      { deadline_ms: 999 },
      { deadline_ms: 0 },
    ]) {
      expect(refusal(options), JSON.stringify(options)).toMatchObject({ code: "INVALID_OPTIONS" });
    }
  });

  it.each(["windows-powershell", "cmd", "git-bash", "zsh", "fish", "/bin/bash", "BASH", ""])(
    "refuses shell = %j with COMMAND_SHELL_INVALID naming what this platform supports",
    (shell) => {
      const error = refusal({ shell });
      if (shell === "") {
        expect(error).toMatchObject({ code: ShellOptionsErrorCode.INVALID_OPTIONS });
        return;
      }
      expect(error).toMatchObject({
        code: ShellOptionsErrorCode.COMMAND_SHELL_INVALID,
        details: { shell, supported: ["sh", "bash"] },
      });
      expect(error?.message).toContain(`options.shell/shell: ${JSON.stringify(shell)}`);
      expect(error?.message).toContain(`(${process.platform}); supported here: sh, bash`);
    },
  );

  it("accepts bash_path only as an absolute executable regular file", () => {
    const dir = useWorkspace();
    writeFileSync(`${dir}/bash`, "#!/bin/sh\n");
    chmodSync(`${dir}/bash`, 0o755);
    writeFileSync(`${dir}/not-executable`, "");
    expect(resolveShellOptions({ shell: "bash", bash_path: `${dir}/bash` }).bashPath).toBe(`${dir}/bash`);
    for (const [bash_path, problem] of [
      ["bash", "must be an absolute path"],
      ["./bin/bash", "must be an absolute path"],
      [`${dir}/missing`, "is not an executable regular file"],
      [`${dir}/not-executable`, "is not an executable regular file"],
      [dir, "is not an executable regular file"],
    ]) {
      const error = refusal({ shell: "bash", bash_path });
      expect(error, bash_path).toMatchObject({ code: "INVALID_OPTIONS" });
      expect(error?.message).toContain(problem);
    }
  });

  it("registers every code it throws once, and its sources write no code literal outside a register", () => {
    expect(ShellOptionsErrorCode).toEqual({
      INVALID_OPTIONS: "INVALID_OPTIONS",
      COMMAND_SHELL_INVALID: "COMMAND_SHELL_INVALID",
      SANDBOX_UNAVAILABLE: "SANDBOX_UNAVAILABLE",
    });
    const src = dirname(fileURLToPath(import.meta.url));
    const literals = readdirSync(src)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .flatMap((f) =>
        [
          ...readFileSync(join(src, f), "utf8").matchAll(
            /\b(?:fail\(|PabloError\(|code:)\s*["'`]([A-Z][A-Z0-9_]+)/g,
          ),
        ].map((m) => `${f}: ${m[1]}`),
      );
    expect(literals).toEqual([]);
  });

  it("accepts login only with bash", () => {
    expect(resolveShellOptions({ shell: "bash", login: true }).login).toBe(true);
    expect(refusal({ login: true })?.message).toContain('needs shell = "bash"');
    expect(DEFAULT_SHELL_OPTIONS).toMatchObject({ login: false, loginPathProbe: false });
  });
});
