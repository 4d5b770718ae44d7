import Type from "typebox";
import { describe, expect, it, onTestFinished } from "vitest";
import { createCatalog, createKernel, fail, MemoryEventSink, ok } from "./index.js";
import { type Started, startedSignal } from "./test-support/session.js";
import { echoTool, sleep } from "./test-support/tools.js";

describe("cancellation and timeouts", () => {
  const slow = (committed: boolean, started: Started) =>
    echoTool({
      execute: async (_args, ctx) => {
        started.mark();
        await sleep(5_000, ctx.signal).catch(() => undefined);
        return committed ? ok("done", { committed: true }) : ok("late");
      },
    });

  it("a cancelled call returns TOOL_CANCELLED", async () => {
    const started = startedSignal();
    const session = createKernel().openSession({ catalog: createCatalog([slow(false, started)]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
  });

  it("a result that committed keeps committed: true even when cancellation arrives", async () => {
    const started = startedSignal();
    const session = createKernel().openSession({ catalog: createCatalog([slow(true, started)]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toEqual({ ok: true, data: "done", committed: true });
  });

  it("the run deadline stops a running tool with TOOL_TIMEOUT", async () => {
    const session = createKernel({ limits: { runDeadlineMs: 50 } }).openSession({
      catalog: createCatalog([slow(false, startedSignal())]),
    });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_TIMEOUT" },
    });
  });

  it("a tool that ignores its signal is reported after the cleanup allowance, not waited on forever", async () => {
    const started = startedSignal();
    const stubborn = echoTool({
      execute: () => {
        started.mark();
        return new Promise(() => undefined);
      },
    });
    const session = createKernel({ cleanupGraceMs: 30 }).openSession({ catalog: createCatalog([stubborn]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({ ok: false, error: { code: "TOOL_CLEANUP_FAILED" } });
  });

  it("a tool that throws becomes TOOL_FAILED, never a crashed host", async () => {
    const thrower = echoTool({
      execute: async () => {
        throw new Error("boom");
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([thrower]) });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_FAILED", message: "test_echo failed: boom" },
    });
  });

  it("output that breaks the declared output schema is a contract violation", async () => {
    const typed = echoTool({
      outputSchema: Type.Object({ n: Type.Number() }, { additionalProperties: false }),
      execute: async () => ok({ n: "not a number" }),
    });
    const session = createKernel().openSession({ catalog: createCatalog([typed]) });
    expect((await session.call({ tool: "test_echo", args: { text: "x" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_CONTRACT_VIOLATION" },
    });
  });
});

describe("progress and cancellation details", () => {
  it("gives the calling host the progress itself, while native events stay content-free", async () => {
    const events = new MemoryEventSink();
    const streaming = echoTool({
      execute: async (_args, ctx) => {
        ctx.progress({ kind: "stdout", data: "line 1\n" });
        return ok(null);
      },
    });
    const session = createKernel({ events }).openSession({ catalog: createCatalog([streaming]) });
    const seen: unknown[] = [];
    await session.call({ tool: "test_echo", args: { text: "x" }, onProgress: (p) => seen.push(p) });
    expect(seen).toEqual([{ kind: "stdout", data: "line 1\n" }]);
    expect(JSON.stringify(events.events)).not.toContain("line 1");
  });

  it("keeps what the tool reported about its state when a call is cancelled", async () => {
    const started = startedSignal();
    const remote = echoTool({
      execute: async (_args, ctx) => {
        started.mark();
        await sleep(5_000, ctx.signal).catch(() => undefined);
        return fail("TOOL_FAILED", "disconnected", { remoteCompletion: "unknown" });
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([remote]) });
    const controller = new AbortController();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort();
    expect((await pending).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_CANCELLED", details: { remoteCompletion: "unknown" } },
    });
  });

  it("tells onAbort listeners of a cancellation, with the signal's reason, without making the signal", async () => {
    const started = startedSignal();
    const heard: unknown[] = [];
    let removed = 0;
    const listening = echoTool({
      execute: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.onAbort((reason) => {
            heard.push(reason);
            resolve(ok("stopped"));
          });
          // A listener removed before the abort never runs.
          ctx.onAbort(() => removed++)();
          started.mark();
        }),
    });
    const session = createKernel().openSession({ catalog: createCatalog([listening]) });
    const controller = new AbortController();
    const made = countAbortControllers();
    const pending = session.call({ tool: "test_echo", args: { text: "x" }, signal: controller.signal });
    await started.promise;
    controller.abort("host gave up");
    expect((await pending).result).toMatchObject({ ok: false, error: { code: "TOOL_CANCELLED" } });
    expect(heard).toEqual(["host gave up"]);
    expect(removed).toBe(0);
    expect(made()).toBe(0);
  });

  it("runs an onAbort listener at once when the call has already aborted, with what signal says", async () => {
    const seen: Array<{ reason: unknown; signalReason: unknown }> = [];
    const late = echoTool({
      execute: async (_args, ctx) => {
        await sleep(5_000, ctx.signal).catch(() => undefined);
        ctx.onAbort((reason) => seen.push({ reason, signalReason: ctx.signal.reason }));
        return ok("late");
      },
    });
    const session = createKernel({ limits: { runDeadlineMs: 50 } }).openSession({
      catalog: createCatalog([late]),
    });
    const { result } = await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_TIMEOUT" } });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.reason).toBe(seen[0]?.signalReason);
    expect(seen[0]?.reason).toBeDefined();
  });

  it("gives each call its own signal, so listeners left by a tool do not accumulate", async () => {
    const signals = new Set<AbortSignal>();
    const leaky = echoTool({
      execute: async (_args, ctx) => {
        signals.add(ctx.signal);
        ctx.signal.addEventListener("abort", () => undefined);
        return ok(null);
      },
    });
    const session = createKernel().openSession({ catalog: createCatalog([leaky]) });
    for (let i = 0; i < 3; i++) await session.call({ tool: "test_echo", args: { text: "x" } });
    expect(signals.size).toBe(3);
  });
});

/** Counts the AbortControllers made from now until the test ends. */
function countAbortControllers(): () => number {
  const original = globalThis.AbortController;
  let count = 0;
  globalThis.AbortController = class extends original {
    constructor() {
      super();
      count++;
    }
  };
  onTestFinished(() => {
    globalThis.AbortController = original;
  });
  return () => count;
}
