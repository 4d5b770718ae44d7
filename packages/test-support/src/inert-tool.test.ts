import { describe, expect, it } from "vitest";
import { inertTool } from "./index.js";

describe("inertTool", () => {
  it("is a closed, low-risk, non-mutating read tool that succeeds with the data it was given", async () => {
    const tool = inertTool("fs.read", { effects: ["fs.read"], data: "fs.read" });
    expect(tool).toMatchObject({ name: "fs.read", risk: "low", category: "read", mutates: false });
    expect(tool.effects).toEqual(["fs.read"]);
    expect(tool.inputSchema).toMatchObject({ type: "object", properties: {}, additionalProperties: false });
    expect(await tool.execute()).toEqual({ ok: true, data: "fs.read" });
  });

  it("declares no effects and succeeds with null by default", async () => {
    const tool = inertTool("x.y");
    expect(tool.effects).toEqual([]);
    expect(await tool.execute()).toEqual({ ok: true, data: null });
  });
});
