import { describe, expect, it } from "vitest";
import { parseAgentOptions } from "../index.js";

describe("[options.agent]", () => {
  it("resolves an absent section to no options and a valid one to itself", () => {
    expect(parseAgentOptions(undefined)).toEqual({ ok: true, value: {} });
    const section = { subagents: { reviewer: { description: "Reviews a diff.", tools: ["Read", "Grep"] } } };
    expect(parseAgentOptions(section)).toEqual({ ok: true, value: section });
  });

  it("locates a bad delegate without throwing, saying what is allowed", () => {
    const parsed = parseAgentOptions({
      subagents: { ok: { description: "Reviews.", descripton: "typo" } },
      children: { max_concurrent: 99 },
    });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: "unknown-key",
          path: "/subagents/ok/descripton",
          message: 'unknown key "descripton"; did you mean "description"?',
        }),
        expect.objectContaining({ kind: "invalid", path: "/children/max_concurrent" }),
      ]),
    );
  });
});
