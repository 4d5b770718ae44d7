import { describe, expect, it } from "vitest";
import { createCatalog, createKernel, ok, stateKey, type ToolContext } from "./index.js";
import { echoTool } from "./test-support/tools.js";

const COUNTER = stateKey<{ n: number }>("test.counter");

describe("session state", () => {
  it("keeps one slot per key for the whole session, created by the first init only", async () => {
    let inits = 0;
    const counting = echoTool({
      execute: async (_args, ctx) => {
        const counter = ctx.state(COUNTER, () => {
          inits++;
          return { n: 0 };
        });
        counter.n++;
        return ok(counter.n);
      },
    });
    const kernel = createKernel();
    const catalog = createCatalog([counting]);
    const session = kernel.openSession({ catalog });
    await session.call({ tool: "test_echo", args: { text: "a" } });
    expect((await session.call({ tool: "test_echo", args: { text: "b" } })).result).toEqual({
      ok: true,
      data: 2,
    });
    const other = kernel.openSession({ catalog });
    expect((await other.call({ tool: "test_echo", args: { text: "c" } })).result).toEqual({
      ok: true,
      data: 1,
    });
    expect(inits).toBe(2);
  });

  it("binds a typed key to its type at compile time, while plain string keys keep working", () => {
    const typed = (ctx: ToolContext): number => ctx.state(COUNTER, () => ({ n: 1 })).n;
    // @ts-expect-error: COUNTER holds { n: number }, not a string.
    const wrong = (ctx: ToolContext) => ctx.state(COUNTER, () => "text");
    const plain = (ctx: ToolContext): string[] => ctx.state("test.names", () => [] as string[]);
    expect([typeof typed, typeof wrong, typeof plain]).toEqual(["function", "function", "function"]);
    expect(COUNTER).toBe("test.counter");
  });
});
