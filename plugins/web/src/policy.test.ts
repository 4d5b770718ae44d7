import { defineLayer, NET_CANONICAL_RULE } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { type LoopbackServer, startServer } from "./test-support/server.js";
import { webSession } from "./test-support/session.js";

/**
 * The deployment allows only http://127.0.0.1:A/public/ (server A) and denies server B outright.
 * Each URL below is a string trick; the kernel decides on the URL the plugin declared (the
 * canonical href, or the argument as given when it is not canonical), and the servers record what
 * was really requested.
 */
async function setup() {
  const a = await startServer();
  const b = await startServer();
  const deployment = defineLayer({
    id: "deployment",
    net: {
      allow: [{ id: "public", prefix: `http://127.0.0.1:${a.port}/public/` }],
      deny: [{ id: "no-b", prefix: `http://127.0.0.1:${b.port}/` }],
    },
  });
  const { session } = await webSession({ layers: [deployment] });
  return { a, b, session };
}

/**
 * [label, URL, expected, path requested]. `expected` is the deciding rule ID of the deployment
 * layer, `INVALID_ARGUMENT` for the plugin's own refusal, or a `URL_*` code for a spelling the
 * kernel refuses as rule `kernel.net-canonical`.
 */
type Case = [string, (a: LoopbackServer, b: LoopbackServer) => string, string, string | undefined];

const cases: Case[] = [
  ["the plain allowed URL", (a) => `${a.origin}/public/page`, "public", "/public/page"],
  [
    "userinfo naming the allowed origin",
    (a, b) => `http://127.0.0.1:${a.port}@127.0.0.1:${b.port}/public/page`,
    "INVALID_ARGUMENT",
    undefined,
  ],
  ["encoded dots", (a) => `${a.origin}/public/%2e%2e/private/secret`, "URL_DOT_SEGMENT", undefined],
  [
    "upper-case encoded dots",
    (a) => `${a.origin}/public/%2E%2E/private/secret`,
    "URL_DOT_SEGMENT",
    undefined,
  ],
  ["an encoded slash", (a) => `${a.origin}/public/..%2fprivate%2fsecret`, "URL_DOT_SEGMENT", undefined],
  [
    "an encoded slash in a name",
    (a) => `${a.origin}/public/a%2f..%2fsecret`,
    "URL_ENCODED_SEPARATOR",
    undefined,
  ],
  ["an encoded backslash", (a) => `${a.origin}/public/..%5cprivate`, "URL_DOT_SEGMENT", undefined],
  [
    "backslashes",
    (a) => `http://127.0.0.1:${a.port}/public\\..\\private\\secret`,
    "URL_NOT_CANONICAL",
    undefined,
  ],
  ["literal dot segments", (a) => `${a.origin}/public/../private/secret`, "URL_DOT_SEGMENT", undefined],
  ["an upper-case scheme", (a) => `HTTP://127.0.0.1:${a.port}/public/page`, "public", "/public/page"],
  ["an upper-case path", (a) => `${a.origin}/PUBLIC/page`, "default", undefined],
  ["another name for the host", (a) => `http://LOCALHOST:${a.port}/public/page`, "default", undefined],
  ["a decimal host", (a) => `http://2130706433:${a.port}/public/page`, "URL_NOT_CANONICAL", undefined],
  [
    "a hex host on the denied port",
    (_a, b) => `http://0x7f.1:${b.port}/public/page`,
    "URL_NOT_CANONICAL",
    undefined,
  ],
  [
    "an octal host on the denied port",
    (_a, b) => `http://0177.0.0.1:${b.port}/x`,
    "URL_NOT_CANONICAL",
    undefined,
  ],
  [
    "an IPv4-mapped IPv6 host",
    (a) => `http://[::ffff:127.0.0.1]:${a.port}/public/page`,
    "URL_NOT_CANONICAL",
    undefined,
  ],
  [
    "a trailing dot on the host",
    (a) => `http://127.0.0.1.:${a.port}/public/page`,
    "URL_NOT_CANONICAL",
    undefined,
  ],
  ["another port", (_a, b) => `http://127.0.0.1:${b.port}/public/page`, "no-b", undefined],
  [
    "the allowed URL in the query",
    (a, b) => `http://127.0.0.1:${b.port}/?u=${a.origin}/public/`,
    "no-b",
    undefined,
  ],
  [
    "the allowed URL in the fragment",
    (a, b) => `http://127.0.0.1:${b.port}/#@127.0.0.1:${a.port}/public/`,
    "no-b",
    undefined,
  ],
  [
    "a query on an allowed path",
    (a) => `${a.origin}/public/page?next=/private`,
    "public",
    "/public/page?next=/private",
  ],
];

describe("web.fetch under the kernel's network dimension", () => {
  it.each(cases)("%s", async (_label, build, expected, requested) => {
    const { a, b, session } = await setup();
    const url = build(a, b);
    const dry = await session.dryRun({ tool: "plugin_web_fetch", args: { url } });
    expect(a.hits.length + b.hits.length).toBe(0);
    const { result, decision } = await session.call({ tool: "plugin_web_fetch", args: { url } });
    if (expected === "INVALID_ARGUMENT") {
      expect(result).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
      expect(dry).toMatchObject({ decision: "deny", code: "INVALID_ARGUMENT" });
    } else if (requested === undefined) {
      const rule = expected.startsWith("URL_") ? NET_CANONICAL_RULE : expected;
      expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
      expect(decision).toMatchObject({ verdict: "deny", layer: "deployment", rule, dimension: "net" });
      expect(dry).toMatchObject({ decision: "deny", layer: "deployment", rule });
      if (rule === NET_CANONICAL_RULE) expect(decision.reason).toContain(`: ${expected}: `);
    } else {
      expect(result.ok).toBe(true);
      expect(dry).toMatchObject({ decision: "allow", layer: "deployment", rule: expected });
      expect(a.hits).toEqual([requested]);
    }
    if (requested === undefined) expect(a.hits).toEqual([]);
    expect(b.hits).toEqual([]);
  });

  it.each([
    ["https://BÜCHER.example/a", "allow"],
    ["https://xn--bcher-kva.example:443/a", "allow"],
    ["https://bücher.exаmple/a", "deny"],
    ["https://xn--bcher-kva.example:8443/a", "deny"],
    ["https://xn--bcher-kva.example.evil.test/a", "deny"],
  ])("decides IDN and default-port forms on the parsed URL: %s -> %s (dry run)", async (url, verdict) => {
    const layer = defineLayer({
      id: "deployment",
      net: { allow: [{ id: "books", prefix: "https://xn--bcher-kva.example/" }] },
    });
    const { session } = await webSession({ layers: [layer], options: { allowLoopback: false } });
    const dry = await session.dryRun({ tool: "plugin_web_fetch", args: { url } });
    expect(dry.decision).toBe(verdict);
    if (verdict === "allow") expect(dry).toMatchObject({ layer: "deployment", rule: "books" });
  });
});
