import { describe, expect, it } from "vitest";
import { once, onDemand } from "./on-demand.js";

describe("on-demand modules", () => {
  it("loads the runner once and hands every later command the same module promise", async () => {
    const first = onDemand.run();
    expect(onDemand.run()).toBe(first);
    expect(typeof (await first).runShell).toBe("function");
  });

  it("forgets a failed load, so a later call tries again", async () => {
    let attempts = 0;
    const load = once(async () => {
      attempts++;
      if (attempts === 1) throw new Error("not yet");
      return attempts;
    });
    await expect(load()).rejects.toThrow("not yet");
    expect(await load()).toBe(2);
    expect(await load()).toBe(2);
    expect(attempts).toBe(2);
  });
});
