import { describe, expect, it } from "vitest";
import { isLoopbackHost, normalizeFetchUrl } from "./index.js";

describe("normalizeFetchUrl", () => {
  it.each([
    ["https://Example.COM:443/a/../b?q=1#frag", true, "https://example.com/b?q=1"],
    ["http://LOCALHOST:8080/x", true, "http://localhost:8080/x"],
    ["http://2130706433:9/x", true, "http://127.0.0.1:9/x"],
    ["https://ｅｘａｍｐｌｅ.com/", false, "https://example.com/"],
  ])("normalizes %s once", (input, loopback, href) => {
    expect(normalizeFetchUrl(input, loopback)).toEqual({ ok: true, href });
  });

  it.each([
    ["ftp://example.com/f", "scheme ftp: is not fetched"],
    ["file:///etc/passwd", "scheme file: is not fetched"],
    ["http://example.com/", "only https is fetched"],
    ["https://user:secret@example.com/", "user information"],
    ["https://127.0.0.1/", "loopback host 127.0.0.1 is not allowed"],
    ["https://0x7f000001/", "loopback host 127.0.0.1 is not allowed"],
    ["https://[::1]/", "loopback host [::1] is not allowed"],
    ["https://[::ffff:127.0.0.1]/", "loopback host [::ffff:7f00:1] is not allowed"],
    ["https://localhost./", "loopback host localhost. is not allowed"],
    ["https://app.localhost/", "loopback host app.localhost is not allowed"],
    ["https://0.0.0.0/", "loopback host 0.0.0.0 is not allowed"],
    ["not a url", "not an absolute URL"],
  ])("refuses %s", (input, reason) => {
    const verdict = normalizeFetchUrl(input, false);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok ? "" : verdict.reason).toContain(reason);
  });

  it("keeps non-loopback hosts loopback-free even when loopback is allowed", () => {
    expect(normalizeFetchUrl("http://example.com/", true)).toMatchObject({ ok: false });
    expect(isLoopbackHost("127.1.2.3")).toBe(true);
    expect(isLoopbackHost("128.0.0.1")).toBe(false);
    expect(isLoopbackHost("localhost.example.com")).toBe(false);
  });
});
