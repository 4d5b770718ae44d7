import { describe, expect, it } from "vitest";
import { callAction, loadSigned } from "./test-support/catalog-fixture.js";

describe("steps and fallbacks", () => {
  it("runs the seed's host_snapshot example: two steps, head and count filters", async () => {
    const { action } = loadSigned(`
name: host_snapshot
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
`);
    const result = await callAction(action("host_snapshot"), { head: 1 });
    expect(result.ok).toBe(true);
    const data = (
      result as unknown as { data: { exitCode: number; steps: { name: string; stdout: string }[] } }
    ).data;
    expect(data.exitCode).toBe(0);
    expect(data.steps.map((s) => s.name)).toEqual(["uptime", "memory"]);
    expect(data.steps[0]?.stdout).toMatch(/load average/);
    expect(data.steps[1]?.stdout).toMatch(/^\s+total/);
    expect(data.steps[1]?.stdout.trim().split("\n")).toHaveLength(1);
    const counted = await callAction(action("host_snapshot"), { count: true });
    const steps = (counted as unknown as { data: { steps: { count: number; stdout: string }[] } }).data.steps;
    expect(steps.map((s) => s.stdout)).toEqual(["", ""]);
    expect(steps[1]?.count).toBeGreaterThanOrEqual(2);
  });

  it("with on_error: stop, reports the steps after a failure as skipped and exits with the failed step's code", async () => {
    const { action } = loadSigned(`
name: stop_early
description: d
risk: read
steps:
  - { name: first, exec: [/usr/bin/printf, one] }
  - { name: broken, exec: [/usr/bin/false] }
  - { name: never, exec: [/usr/bin/printf, three] }
on_error: stop
`);
    const result = await callAction(action("stop_early"), {});
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("TOOL_FAILED");
    const details = result.error.details as { exitCode: number; steps: Record<string, unknown>[] };
    expect(details.exitCode).toBe(1);
    expect(details.steps.map((s) => [s["name"], s["exitCode"] ?? null, s["skipped"] ?? false])).toEqual([
      ["first", 0, false],
      ["broken", 1, false],
      ["never", null, true],
    ]);
  });

  it("with on_error: continue, runs every step and keeps the first failure's code", async () => {
    const { action } = loadSigned(`
name: keep_going
description: d
risk: read
steps:
  - { name: a, exec: [/usr/bin/false] }
  - { name: b, exec: [/usr/bin/timeout, "1", /usr/bin/sleep, "5"] }
  - { name: c, exec: [/usr/bin/printf, done] }
on_error: continue
`);
    const result = await callAction(action("keep_going"), {});
    if (result.ok) throw new Error("expected a failure");
    const details = result.error.details as { exitCode: number; steps: Record<string, unknown>[] };
    expect(details.exitCode).toBe(1);
    expect(details.steps.map((s) => [s["name"], s["exitCode"], s["stdout"]])).toEqual([
      ["a", 1, ""],
      ["b", 124, ""],
      ["c", 0, "done"],
    ]);
  });

  it("uses a fallback only when the primary executable does not exist", async () => {
    const { action } = loadSigned(`
actions:
  - name: missing_primary
    description: d
    risk: read
    exec: [/nonexistent/printf, fallback-ran]
    exec_fallbacks: [/usr/bin/printf]
  - name: failing_primary
    description: d
    risk: read
    exec: [/usr/bin/false]
    exec_fallbacks: [/usr/bin/true]
  - name: all_missing
    description: d
    risk: read
    exec: [/nonexistent/a]
    exec_fallbacks: [/nonexistent/b]
`);
    const used = await callAction(action("missing_primary"), {});
    expect(used).toMatchObject({
      ok: true,
      data: { steps: [{ executable: "/usr/bin/printf", stdout: "fallback-ran" }] },
    });
    // A primary that exists and fails is not retried with the fallback.
    const failed = await callAction(action("failing_primary"), {});
    expect(failed).toMatchObject({
      ok: false,
      error: { details: { steps: [{ executable: "/usr/bin/false", exitCode: 1 }] } },
    });
    const missing = await callAction(action("all_missing"), {});
    expect(missing).toMatchObject({
      ok: false,
      error: { details: { exitCode: 127, steps: [{ error: expect.stringContaining("/nonexistent/b") }] } },
    });
  });

  it("holds one timeout over all steps", async () => {
    const { action } = loadSigned(`
name: slow
description: d
risk: read
steps:
  - { name: a, exec: [/usr/bin/sleep, "0.6"] }
  - { name: b, exec: [/usr/bin/sleep, "0.6"] }
  - { name: c, exec: [/usr/bin/sleep, "0.6"] }
timeout: 1s
`);
    const started = performance.now();
    const result = await callAction(action("slow"), {});
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
  });

  it("holds one output budget over all steps and flags truncation", async () => {
    const { action } = loadSigned(`
name: chatty
description: d
risk: read
steps:
  - { name: a, exec: [/usr/bin/head, -c, "600", /dev/zero] }
  - { name: b, exec: [/usr/bin/head, -c, "600", /dev/zero] }
max_output: 1000
`);
    const result = await callAction(action("chatty"), {});
    const steps = (
      result as unknown as { data: { steps: { stdout: string; truncated: boolean; scanLimited: boolean }[] } }
    ).data.steps;
    expect(steps.map((s) => [s.stdout.length, s.truncated, s.scanLimited])).toEqual([
      [600, false, false],
      [400, true, false],
    ]);
  });

  it("flags the scan limit separately from truncation", async () => {
    const { action } = loadSigned(`
name: big
description: d
risk: read
exec: [/usr/bin/head, -c, "5000", /dev/zero]
max_scan: 1000
`);
    const result = await callAction(action("big"), {});
    const step = (
      result as unknown as {
        data: { steps: { stdoutBytes: number; scanLimited: boolean; truncated: boolean }[] };
      }
    ).data.steps[0];
    expect(step).toMatchObject({ stdoutBytes: 5000, scanLimited: true, truncated: false });
  });
});
