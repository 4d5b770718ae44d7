import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, ok } from "./index.js";
import { startedSignal } from "./test-support/session.js";
import { echoTool, sleep, writeTool } from "./test-support/tools.js";

describe("mutation ordering", () => {
  function tracker() {
    let active = 0;
    let maxActive = 0;
    const run = async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      await sleep(15);
      active--;
      return ok(null);
    };
    return { run, max: () => maxActive };
  }

  it("never runs two mutations of one session at once, even when reads may run in parallel", async () => {
    const writes = tracker();
    const session = createKernel().openSession({
      catalog: createCatalog([writeTool({ execute: writes.run })]),
      permission: { mode: "auto" },
      concurrency: "parallel-reads",
    });
    await Promise.all(
      [1, 2, 3, 4].map((i) => session.call({ tool: "test_write", args: { path: `/w/${i}` } })),
    );
    expect(writes.max()).toBe(1);
  });

  it("holds the mutation lock until a tool reported after the cleanup allowance really settles", async () => {
    const started = startedSignal();
    let finishFirst!: () => void;
    const order: string[] = [];
    const stubbornWrite = writeTool({
      execute: (args) => {
        const { path } = args as { path: string };
        order.push(`start ${path}`);
        if (path !== "/w/first") return Promise.resolve(ok(null));
        started.mark();
        // Ignores its signal: keeps "writing" until the test lets it finish.
        return new Promise((resolve) => {
          finishFirst = () => {
            order.push("first settled");
            resolve(ok(null));
          };
        });
      },
    });
    const session = createKernel({ cleanupGraceMs: 20 }).openSession({
      catalog: createCatalog([stubbornWrite]),
      permission: { mode: "auto" },
      concurrency: "parallel-reads",
    });
    const controller = new AbortController();
    const first = session.call({ tool: "test_write", args: { path: "/w/first" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await first).result).toMatchObject({ ok: false, error: { code: "TOOL_CLEANUP_FAILED" } });
    const second = session.call({ tool: "test_write", args: { path: "/w/second" } });
    await sleep(30);
    expect(order).toEqual(["start /w/first"]);
    finishFirst();
    expect((await second).result.ok).toBe(true);
    expect(order).toEqual(["start /w/first", "first settled", "start /w/second"]);
  });

  it("runs reads concurrently only when the host asks for it", async () => {
    const sequential = tracker();
    const parallel = tracker();
    const seq = createKernel().openSession({
      catalog: createCatalog([echoTool({ execute: sequential.run })]),
    });
    const par = createKernel().openSession({
      catalog: createCatalog([echoTool({ execute: parallel.run })]),
      concurrency: "parallel-reads",
    });
    await Promise.all([1, 2, 3].map(() => seq.call({ tool: "test_echo", args: { text: "x" } })));
    await Promise.all([1, 2, 3].map(() => par.call({ tool: "test_echo", args: { text: "x" } })));
    expect(sequential.max()).toBe(1);
    expect(parallel.max()).toBe(3);
  });
});
