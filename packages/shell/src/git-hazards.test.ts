import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createShellTool } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { useWorkspace } from "./test-support/workspace.js";

/** A repository whose own .git/config names a program that leaves a marker when git runs it. */
function hazardousRepository() {
  const workspace = useWorkspace();
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
      cwd: workspace,
      env: { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
      encoding: "utf8",
    });
  git("init", "-q", ".");
  writeFileSync(`${workspace}/file.txt`, "one\n");
  git("add", "file.txt");
  git("commit", "-qm", "first");
  writeFileSync(`${workspace}/file.txt`, "two\n");
  const marker = `${workspace}/.git/hazard-ran`;
  writeFileSync(`${workspace}/.git/hazard.sh`, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`);
  chmodSync(`${workspace}/.git/hazard.sh`, 0o755);
  return { workspace, git, marker, hazard: `${workspace}/.git/hazard.sh` };
}

describe("git's configuration-driven programs are turned off by the clean environment", () => {
  it("does not run core.fsmonitor from the repository's .git/config on git status", async () => {
    const { workspace, git, marker, hazard } = hazardousRepository();
    git("config", "core.fsmonitor", hazard);
    // The hazard is real: git status with an ordinary environment runs it.
    git("status", "--short");
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const { session } = sessionFor(createShellTool({ workspace }));
    const { result } = await session.call({ tool: "shell_run", args: { command: "git status --short" } });
    expect(result).toMatchObject({ ok: true, data: { stdout: " M file.txt\n" } });
    expect(existsSync(marker)).toBe(false);
  });

  it("does not run the repository's hooks, and git diff and log still work", async () => {
    const { workspace, git, marker, hazard } = hazardousRepository();
    writeFileSync(`${workspace}/.git/hooks/pre-commit`, `#!/bin/sh\nexec '${hazard}'\n`);
    chmodSync(`${workspace}/.git/hooks/pre-commit`, 0o755);
    git("config", "core.pager", hazard);

    const { session } = sessionFor(createShellTool({ workspace }));
    const diff = await session.call({ tool: "shell_run", args: { command: "git diff" } });
    expect(diff.result).toMatchObject({ ok: true });
    expect(JSON.stringify(diff.result)).toContain("-one\\n+two");
    const commit = await session.call({
      tool: "shell_run",
      args: {
        command: "git -c user.name=t -c user.email=t@example.com commit -qam second && git log --oneline",
      },
    });
    expect(commit.result).toMatchObject({ ok: true });
    expect(JSON.stringify(commit.result)).toMatch(/second\\n.*first\\n/);
    expect(existsSync(marker)).toBe(false);
  });
});
