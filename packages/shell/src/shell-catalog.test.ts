import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  realpathSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { describe, expect, it } from "vitest";
import {
  commandRulesLayer,
  createShellTool,
  findShell,
  type ShellEntry,
  type ShellToolConfig,
  shellCatalog,
} from "./index.js";
import { pinShell, WELL_KNOWN_BASH } from "./shell-catalog.js";
import { sessionFor } from "./test-support/kernel.js";
import { which } from "./test-support/which.js";
import { useWorkspace } from "./test-support/workspace.js";

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

describe("deployment shell choices", () => {
  const bash = findShell("bash")?.path ?? "/bin/bash";

  function bashLink(workspace: string): string {
    mkdirSync(`${workspace}/bin`);
    symlinkSync(bash, `${workspace}/bin/bash`);
    return `${workspace}/bin/bash`;
  }

  it("runs the bash named by bash_path, and nothing else, when it is set", async () => {
    const dir = useWorkspace();
    const link = bashLink(dir);
    expect(findShell("bash", { bashPath: link })).toMatchObject({ path: link, dialect: "bash" });
    expect(findShell("bash", { bashPath: `${dir}/missing` })).toBeUndefined();
    const { session } = sessionFor(
      createShellTool({ workspace: useWorkspace(), options: { shell: "bash", bash_path: link } }),
    );
    const { result } = await session.call({
      tool: "shell_run",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template.
      args: { command: 'printf %s "${BASH_VERSION:+bash}:$0"' },
    });
    expect(result).toMatchObject({ ok: true, data: { stdout: `bash:${link}` } });
  });

  it("refuses with SHELL_NOT_FOUND when the bash_path file is gone at call time", async () => {
    const dir = useWorkspace();
    const link = bashLink(dir);
    const { session } = sessionFor(
      createShellTool({ workspace: useWorkspace(), options: { shell: "bash", bash_path: link } }),
    );
    unlinkSync(link);
    const { result } = await session.call({ tool: "shell_run", args: { command: "true" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "SHELL_NOT_FOUND", details: { shell: "bash" } },
    });
    expect(JSON.stringify(result)).toContain(
      `options.shell.bash_path ${link} is not an executable regular file`,
    );
  });

  it("finds bash on PATH after the well-known locations, absolute directories only", () => {
    const dir = useWorkspace();
    bashLink(dir);
    const onPath = findShell("bash", { searchPath: ["bin", `${dir}/bin`] });
    // The well-known locations come first; where none holds bash, the PATH entry is used.
    expect(onPath?.path).toBe(WELL_KNOWN_BASH.find((p) => existsSync(p)) ?? `${dir}/bin/bash`);
  });

  it("runs bash as a login shell with login = true, and never as one by default", async () => {
    const run = async (options: ShellToolConfig["options"]) => {
      const { session } = sessionFor(
        createShellTool({ workspace: useWorkspace(), ...(options ? { options } : {}) }),
      );
      const { result } = await session.call({
        tool: "shell_run",
        args: { command: "shopt -q login_shell && echo login || echo plain" },
      });
      return result;
    };
    expect(await run({ shell: "bash", login: true })).toMatchObject({
      ok: true,
      data: { stdout: "login\n" },
    });
    expect(await run({ shell: "bash" })).toMatchObject({ ok: true, data: { stdout: "plain\n" } });
    expect(findShell("bash", { login: true })?.args).toEqual(["-lc"]);
  });

  it("denies every command of a login shell under command rules: its start-up files can redefine them", async () => {
    const layer = commandRulesLayer("deployment", {
      allow: [{ id: "ls", executable: which("ls"), args: [], match: "prefix" }],
    });
    const tool = createShellTool({ workspace: useWorkspace(), options: { shell: "bash", login: true } });
    const { session } = sessionFor(tool, [layer]);
    const d = await session.dryRun({ tool: "shell_run", args: { command: "ls" } });
    expect(d).toMatchObject({ decision: "deny", layer: "deployment", rule: "unproven" });
    expect(d.reason).toContain("login shell start-up files");
  });

  it("refuses with COMMAND_SHELL_CHANGED, running nothing, when bash_path resolves to another file within a turn", async () => {
    const dir = useWorkspace();
    const link = bashLink(dir);
    copyFileSync(bash, `${dir}/bash-copy`);
    chmodSync(`${dir}/bash-copy`, 0o755);
    const workspace = useWorkspace();
    const { session } = sessionFor(
      createShellTool({ workspace, options: { shell: "bash", bash_path: link } }),
    );
    const call = (turnId: string, file: string) =>
      session.call({ tool: "shell_run", turnId, args: { command: `touch ${file}` } });

    expect((await call("turn-1", "first")).result).toMatchObject({ ok: true });
    unlinkSync(link);
    symlinkSync(`${dir}/bash-copy`, link);
    const { result } = await call("turn-1", "second");
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "COMMAND_SHELL_CHANGED",
        details: {
          shell: "bash",
          pinned: link,
          now: link,
          pinnedExecutable: realpathSync(bash),
          nowExecutable: `${dir}/bash-copy`,
        },
      },
    });
    expect(existsSync(`${workspace}/second`)).toBe(false);
    // A new turn pins the shell afresh.
    expect((await call("turn-2", "third")).result).toMatchObject({ ok: true });
    expect(existsSync(`${workspace}/third`)).toBe(true);
  });
});
