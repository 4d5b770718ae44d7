import { describe, expect, it } from "vitest";
import { DEFAULT_BROWSER_OPTIONS, parseBrowserOptions, resolveBrowserOptions } from "./options.js";

describe("[options.browser]", () => {
  it("fills the documented defaults", () => {
    expect(resolveBrowserOptions()).toEqual({
      enabled: true,
      path: undefined,
      timeoutMs: 30_000,
      maxTextBytes: 65_536,
    });
    expect(resolveBrowserOptions({})).toEqual(DEFAULT_BROWSER_OPTIONS);
  });

  it("keeps what the section sets", () => {
    expect(
      resolveBrowserOptions({
        enabled: false,
        path: "/opt/chrome/chrome",
        timeout_ms: 5_000,
        max_text_bytes: 2_048,
      }),
    ).toEqual({ enabled: false, path: "/opt/chrome/chrome", timeoutMs: 5_000, maxTextBytes: 2_048 });
  });

  it("refuses unknown keys, relative paths and out-of-range bounds with INVALID_OPTIONS", () => {
    for (const section of [
      { headless: false },
      { path: "chromium" },
      { timeout_ms: 10 },
      { max_text_bytes: 10_000_000 },
    ]) {
      expect(() => resolveBrowserOptions(section as never), JSON.stringify(section)).toThrow(
        expect.objectContaining({ code: "INVALID_OPTIONS" }),
      );
    }
  });

  it("parses a bad section into located errors instead of throwing", () => {
    expect(parseBrowserOptions(undefined)).toEqual({ ok: true, value: DEFAULT_BROWSER_OPTIONS });
    const parsed = parseBrowserOptions({ timeout_ms: 10, headless: false });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => [e.kind, e.path])).toEqual([
      ["unknown-key", "/headless"],
      ["invalid", "/timeout_ms"],
    ]);
  });
});
