import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

const CATALOG = `actions:
  - name: host_snapshot
    description: Read uptime and memory in separate steps.
    risk: read
    params: {}
    steps:
      - name: uptime
        exec: [/usr/bin/uptime]
      - name: memory
        exec: [/usr/bin/free, -m]
    on_error: continue
    timeout: 10s
    max_output: 64KB
    filters: [head, count]
    redact:
      builtin: [secrets]
`;

describe("signed actions through the built binary", () => {
  it("keygen, sign, verify, then pablo call action.host_snapshot runs the seed's example; a tampered catalog loads nothing", async () => {
    const home = freshHome();
    const dir = home.dir("ops", { "catalog.yaml": CATALOG });
    const workspace = home.dir("project");
    const env = personEnv(home);
    const at = { cwd: dir, env };
    expect((await runPablo(["actions", "keygen", "ops"], at)).code).toBe(0);
    const signed = await runPablo(["actions", "sign", "catalog.yaml", "--key", "ops.key"], at);
    expect(signed.code, signed.stderr).toBe(0);
    const verified = await runPablo(["actions", "verify", "catalog.yaml", "--trusted", "ops.pub"], at);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    const config = home.write(
      "ops/deployment.toml",
      '[options.actions]\ncatalogs = ["catalog.yaml"]\ntrusted_keys = ["ops.pub"]\n',
    );
    const call = await runPablo(
      ["call", "action.host_snapshot", "--args", "{}", "--json", "--config", config],
      {
        cwd: workspace,
        env,
      },
    );
    expectNoStackTrace(call.stderr);
    expect(call.code, call.stdout + call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as {
      ok: boolean;
      data: { steps: Array<{ name: string; stdout: string }> };
    };
    expect(result.ok).toBe(true);
    expect(result.data.steps.map((s) => s.name)).toEqual(["uptime", "memory"]);
    expect(result.data.steps[1]?.stdout).toMatch(/Mem:/);

    // One changed byte in the signed catalog: the action is refused, with a diagnostic naming it.
    const file = join(dir, "catalog.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("free, -m", "free, -g"));
    const tampered = await runPablo(["tools", "--explain", "--config", config], { cwd: workspace, env });
    expect(tampered.stdout).not.toMatch(/^action_host_snapshot /m);
    expect(tampered.stdout).toMatch(/left out: options\.actions:.*host_snapshot/);
  });
});
