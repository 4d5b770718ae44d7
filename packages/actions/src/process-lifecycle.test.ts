import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { callAction, loadSigned } from "./test-support/catalog-fixture.js";

/** PIDs of live processes whose command line contains `needle`. */
function processesWith(needle: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1").replaceAll("\0", " ");
      const state = readFileSync(`/proc/${entry}/stat`, "latin1").split(") ")[1]?.[0];
      if (cmdline.includes(needle) && state !== "Z") found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const CATALOG = `
actions:
  - name: leaves_child
    description: Starts a background sleep and exits.
    risk: read
    exec: [/bin/sh, -c, "/usr/bin/sleep 47.5 & echo started"]
    allow_interpreter: true
  - name: escapes
    description: Starts a sleep that leaves the group and clears its environment, then exits.
    risk: read
    exec: [/bin/sh, -c, "env -i /usr/bin/setsid /usr/bin/sleep 46.5 >/dev/null 2>&1 & echo started"]
    allow_interpreter: true
  - name: long
    description: Sleeps.
    risk: read
    exec: [/usr/bin/sleep, "48.5"]
  - name: environment
    description: Prints its environment.
    risk: read
    exec: [/usr/bin/env]
  - name: stdin
    description: Reads stdin.
    risk: read
    exec: [/usr/bin/cat]
`;

describe("process lifecycle", () => {
  it("ends an escapee that left the group and cleared the run marker (the PID namespace ends it)", async () => {
    const { action } = loadSigned(CATALOG);
    const result = await callAction(action("escapes"), {});
    expect(result).toMatchObject({ ok: true, data: { steps: [{ stdout: "started\n" }] } });
    await expect.poll(() => processesWith("sleep 46.5"), { timeout: 5_000 }).toEqual([]);
  });

  it("ends a background child the action left behind before the call returns", async () => {
    const { action } = loadSigned(CATALOG);
    const result = await callAction(action("leaves_child"), {});
    expect(result).toMatchObject({ ok: true, data: { steps: [{ stdout: "started\n" }] } });
    expect(processesWith("sleep 47.5")).toEqual([]);
  });

  it("ends the process group on cancellation", async () => {
    const { action } = loadSigned(CATALOG);
    const controller = new AbortController();
    const pending = callAction(action("long"), {}, controller.signal);
    await delay(200);
    // The sleep itself, and the namespace launcher that runs it (its command line names it too).
    expect(processesWith("sleep 48.5").length).toBeGreaterThan(0);
    controller.abort();
    expect(await pending).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
    expect(processesWith("sleep 48.5")).toEqual([]);
  });

  it("runs with the shell package's clean environment, not the host's", async () => {
    process.env["PABLO_ACTIONS_SECRET_PROBE"] = "leak";
    try {
      const { action } = loadSigned(CATALOG);
      const result = await callAction(action("environment"), {});
      const stdout =
        (result as unknown as { data: { steps: { stdout: string }[] } }).data.steps[0]?.stdout ?? "";
      expect(stdout).not.toContain("PABLO_ACTIONS_SECRET_PROBE");
      expect(stdout).toContain("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
      expect(stdout).not.toMatch(/^HOME=/m);
    } finally {
      delete process.env["PABLO_ACTIONS_SECRET_PROBE"];
    }
  });

  it("closes stdin: a reader sees end of input at once", async () => {
    const { action } = loadSigned(CATALOG);
    const started = performance.now();
    expect(await callAction(action("stdin"), {})).toMatchObject({
      ok: true,
      data: { steps: [{ stdout: "" }] },
    });
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
