import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commandRulesLayer, createShellTool } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { which } from "./test-support/which.js";
import { useWorkspace } from "./test-support/workspace.js";

// bash's printf builtin assigns with -v; the rules match `printf` against /usr/bin/printf, which
// cannot. `printf -v PATH DIR; ls` would run DIR/ls under a rule that allows only printf and ls.
describe("bash's printf -v under an allow list", () => {
  it("points an allowed `ls` at another program when nothing restricts commands, so the attack is real", async () => {
    const { workspace, evil, marker } = attackWorkspace();
    const { session } = sessionFor(createShellTool({ workspace, options: { shell: "bash" } }));
    const { result } = await session.call({
      tool: "shell_run",
      args: { command: `printf -v PATH ${evil}; ls` },
    });
    expect(result).toMatchObject({ ok: true, data: { exitCode: 0 } });
    expect(existsSync(marker)).toBe(true);
  });

  it.each([
    ["printf -v PATH DIR; ls"],
    ["printf -vPATH DIR; ls"],
    ["printf '-v' PATH DIR; ls"],
    ['printf "-v" PATH DIR && ls'],
  ])("denies %j as unproven and runs nothing", async (line) => {
    const { workspace, evil, marker } = attackWorkspace();
    const layer = commandRulesLayer("deployment", {
      default: "deny",
      allow: [
        { id: "printf", executable: which("printf"), args: [], match: "prefix" },
        { id: "ls", executable: which("ls"), args: [], match: "prefix" },
      ],
    });
    const { session } = sessionFor(createShellTool({ workspace, options: { shell: "bash" } }), [layer]);
    const command = line.replace("DIR", evil);
    const { result } = await session.call({ tool: "shell_run", args: { command } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(result.ok ? "" : result.error.message).toContain("printf option -v");
    expect(existsSync(marker)).toBe(false);
  });

  it("still allows printf whose first argument is the format, a lone - or follows --", async () => {
    const { workspace } = attackWorkspace();
    const layer = commandRulesLayer("deployment", {
      default: "deny",
      allow: [{ id: "printf", executable: which("printf"), args: [], match: "prefix" }],
    });
    const { session } = sessionFor(createShellTool({ workspace, options: { shell: "bash" } }), [layer]);
    for (const [command, stdout] of [
      ["printf '%s|' -v x", "-v|x|"],
      ["printf -- -v", "-v"],
      ["printf -", "-"],
    ] as const) {
      const { result } = await session.call({ tool: "shell_run", args: { command } });
      expect(result, command).toMatchObject({ ok: true, data: { exitCode: 0, stdout } });
    }
  });
});

function attackWorkspace(): { workspace: string; evil: string; marker: string } {
  const workspace = useWorkspace();
  const evil = `${workspace}/evil`;
  const marker = `${workspace}/PWNED`;
  mkdirSync(evil);
  writeFileSync(`${evil}/ls`, `#!/bin/sh\n: > ${marker}\n`);
  chmodSync(`${evil}/ls`, 0o755);
  return { workspace, evil, marker };
}
