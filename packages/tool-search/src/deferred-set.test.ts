import { describe, expect, it } from "vitest";
import { DeferredToolSet, onDemandCatalog } from "./index.js";

describe("DeferredToolSet", () => {
  it("loads activated tools from the next turn, not the current one", () => {
    const set = new DeferredToolSet();
    expect(set.beginTurn("p1")).toEqual([]);
    expect(set.activate("p1", ["a", "b"])).toEqual(["a", "b"]);
    expect(set.loaded("p1")).toEqual([]);
    expect(set.pending("p1")).toEqual(["a", "b"]);
    expect(set.beginTurn("p1")).toEqual(["a", "b"]);
    expect(set.activate("p1", ["b", "c"])).toEqual(["c"]);
    expect(set.beginTurn("p1")).toEqual(["a", "b", "c"]);
  });

  it("starts over at a new prompt, pending activations included", () => {
    const set = new DeferredToolSet();
    set.activate("p1", ["a"]);
    set.beginTurn("p1");
    set.activate("p1", ["b"]);
    expect(set.beginTurn("p2")).toEqual([]);
    expect(set.isLoaded("p2", "a")).toBe(false);
  });
});

describe("onDemandCatalog", () => {
  const entries = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      providerName: `tool_${i}`,
      definition: { summary: `Does thing number ${i}\nwith a second line` } as never,
    }));

  it("lists provider names with one-line summaries", () => {
    expect(onDemandCatalog(entries(2))).toMatchInlineSnapshot(`
      "# On-demand tools
      These tools are available but not loaded. Call ToolSearch with an exact name or a capability query; the matching tools can be called from the next turn.
      - tool_0: Does thing number 0 with a second line
      - tool_1: Does thing number 1 with a second line
      "
    `);
    expect(onDemandCatalog([])).toBe("");
  });

  it("stays within its byte bound and counts what it left out", () => {
    const text = onDemandCatalog(entries(10_000), { maxBytes: 2048 });
    expect(new TextEncoder().encode(text).length).toBeLessThanOrEqual(2048);
    expect(text).toMatch(/- … and \d+ more; find them with ToolSearch\n$/);
    const listed = text.split("\n").filter((l) => l.startsWith("- tool_")).length;
    expect(text).toContain(`and ${10_000 - listed} more`);
  });
});
