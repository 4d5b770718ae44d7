import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { findShell, type ShellEntry, shellCatalog } from "./index.js";
import { pinShell } from "./shell-catalog.js";

/** A tool context's per-session state and turn, as pinShell sees them. */
function turnContext() {
  const state = new Map<string, unknown>();
  const ctx = {
    turnId: "turn-1",
    state: <T>(key: string, init: () => T): T => {
      if (!state.has(key)) state.set(key, init());
      return state.get(key) as T;
    },
  };
  return ctx;
}

describe("shell catalog", () => {
  it("lists the stable IDs sh and bash for the shells present, non-interactive and without start-up files", () => {
    const catalog = shellCatalog();
    expect(catalog.map((e) => e.id)).toEqual(["sh", ...(findShell("bash") ? ["bash"] : [])]);
    expect(catalog[0]).toEqual({ id: "sh", path: "/bin/sh", dialect: "posix", args: ["-c"] });
    const bash = findShell("bash");
    expect(bash?.args).toEqual(["--noprofile", "--norc", "-c"]);
    expect(bash && existsSync(bash.path)).toBe(true);
  });

  it("refuses a missing shell with SHELL_NOT_FOUND and install guidance", () => {
    const result = pinShell(turnContext(), "bash", () => undefined);
    expect(result).toMatchObject({
      ok: false,
      error: { code: "SHELL_NOT_FOUND", details: { shell: "bash" } },
    });
    expect(JSON.stringify(result)).toContain("apt-get install bash");
  });

  it("pins the shell for a turn and refuses one that changed within it, but not in the next turn", () => {
    const ctx = turnContext();
    const at = (path: string) => (): ShellEntry => ({ id: "bash", path, dialect: "bash", args: ["-c"] });
    expect(pinShell(ctx, "bash", at("/bin/bash"))).toMatchObject({ path: "/bin/bash" });
    expect(pinShell(ctx, "bash", at("/bin/bash"))).toMatchObject({ path: "/bin/bash" });
    expect(pinShell(ctx, "bash", at("/usr/local/bin/bash"))).toMatchObject({
      ok: false,
      error: { code: "COMMAND_SHELL_CHANGED", details: { pinned: "/bin/bash", now: "/usr/local/bin/bash" } },
    });
    ctx.turnId = "turn-2";
    expect(pinShell(ctx, "bash", at("/usr/local/bin/bash"))).toMatchObject({ path: "/usr/local/bin/bash" });
  });
});
