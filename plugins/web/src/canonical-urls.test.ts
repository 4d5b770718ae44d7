import { defineLayer, NET_CANONICAL_RULE } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { type LoopbackServer, startServer } from "./test-support/server.js";
import { webSession } from "./test-support/session.js";

/**
 * Spellings the WHATWG parser rewrites (or passes through) into a URL that lies under the allowed
 * prefix, while a server, proxy or cache could read them as something else. Each must be declared
 * as given and refused by the kernel, with its code, before any request. [label, URL from the
 * allowed origin, code].
 */
const spellings: [string, (origin: string, port: number) => string, string][] = [
  [
    "a trailing dot on an IPv4 host",
    (_o, port) => `http://127.0.0.1.:${port}/public/page`,
    "URL_NOT_CANONICAL",
  ],
  [
    "ideographic full stops (。)",
    (_o, port) => `http://127。0。0。1:${port}/public/page`,
    "URL_NOT_CANONICAL",
  ],
  [
    "full-width full stops (．)",
    (_o, port) => `http://127．0．0．1:${port}/public/page`,
    "URL_NOT_CANONICAL",
  ],
  ["a decimal IPv4 host", (_o, port) => `http://2130706433:${port}/public/page`, "URL_NOT_CANONICAL"],
  ["a port with a leading zero", (_o, port) => `http://127.0.0.1:0${port}/public/page`, "URL_NOT_CANONICAL"],
  ["encoded dots (%2e%2e)", (o) => `${o}/public/x/%2e%2e/page`, "URL_DOT_SEGMENT"],
  ["an encoded single dot (%2e)", (o) => `${o}/public/%2e/page`, "URL_DOT_SEGMENT"],
  ["double-encoded dots (%252e%252e)", (o) => `${o}/public/%252e%252e/secret`, "URL_DOT_SEGMENT"],
  ["overlong UTF-8 dots (%c0%ae)", (o) => `${o}/public/%c0%ae%c0%ae/secret`, "URL_DOT_SEGMENT"],
  ["raw dot segments (..)", (o) => `${o}/public/x/../page`, "URL_DOT_SEGMENT"],
  ["a Tomcat dot segment (..;)", (o) => `${o}/public/..;/secret`, "URL_DOT_SEGMENT"],
  ["an encoded slash (%2f)", (o) => `${o}/public/a%2f..%2f..%2fsecret`, "URL_ENCODED_SEPARATOR"],
  ["a double-encoded slash (%252f)", (o) => `${o}/public/a%252fb`, "URL_ENCODED_SEPARATOR"],
  ["an encoded backslash (%5c)", (o) => `${o}/public/a%5c..%5csecret`, "URL_ENCODED_SEPARATOR"],
  ["a full-width solidus (／)", (o) => `${o}/public/a／b`, "URL_ENCODED_SEPARATOR"],
  ["a backslash", (o) => `${o}/public\\page`, "URL_NOT_CANONICAL"],
  ["an empty segment (//)", (o) => `${o}/public//page`, "URL_NOT_CANONICAL"],
  ["an escaped unreserved character (%70)", (o) => `${o}/public/%70age`, "URL_NOT_CANONICAL"],
  ["a raw tab", (o) => `${o}/pub\tlic/page`, "URL_CONTROL_CHARACTER"],
  ["a raw line feed", (o) => `${o}/pub\nlic/page`, "URL_CONTROL_CHARACTER"],
  ["a raw carriage return", (o) => `${o}/pub\rlic/page`, "URL_CONTROL_CHARACTER"],
  ["an encoded CR LF (%0d%0a)", (o) => `${o}/public/page%0d%0aX-Injected:%201`, "URL_CONTROL_CHARACTER"],
  ["an encoded NUL (%00)", (o) => `${o}/public/page%00.html`, "URL_CONTROL_CHARACTER"],
  ["a NUL in the query (%00)", (o) => `${o}/public/page?x=%00`, "URL_CONTROL_CHARACTER"],
  ["a raw bidi override (U+202E)", (o) => `${o}/public/\u202Eegap`, "URL_INVISIBLE_CHARACTER"],
  ["an encoded bidi override (%E2%80%AE)", (o) => `${o}/public/%E2%80%AEegap`, "URL_INVISIBLE_CHARACTER"],
  ["a zero-width space (U+200B)", (o) => `${o}/public/pa\u200Bge`, "URL_INVISIBLE_CHARACTER"],
];

/** `[options.network]` as the config package builds it: one `deployment` layer with an allow prefix. */
async function deployed(): Promise<{
  server: LoopbackServer;
  prefix: string;
  layer: ReturnType<typeof defineLayer>;
}> {
  const server = await startServer();
  const prefix = `${server.origin}/public/`;
  const layer = defineLayer({
    id: "deployment",
    net: { default: "deny", allow: [{ id: "public", prefix }] },
  });
  return { server, prefix, layer };
}

const UNPRINTABLE = /[\p{Cc}\p{Cf}]/u;

describe("web.fetch declares a non-canonical URL as given, so the kernel refuses it", () => {
  it.each(spellings)("%s", async (_label, build, code) => {
    const { server, prefix, layer } = await deployed();
    const url = build(server.origin, server.port);
    // The parser's rewrite of it lies under the allowed prefix: deciding on that would let it in.
    expect(new URL(url).href.startsWith(prefix)).toBe(true);
    const { session, audit } = await webSession({ layers: [layer] });

    const dry = await session.dryRun({ tool: "plugin_web_fetch", args: { url } });
    expect(dry).toMatchObject({ decision: "deny", layer: "deployment", rule: NET_CANONICAL_RULE });
    const { result, decision } = await session.call({ tool: "plugin_web_fetch", args: { url } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(decision).toMatchObject({
      verdict: "deny",
      layer: "deployment",
      rule: NET_CANONICAL_RULE,
      dimension: "net",
    });
    expect(decision.reason).toContain(`: ${code}: `);
    // What the model and the audit read shows control and invisible characters escaped.
    expect(decision.reason).not.toMatch(UNPRINTABLE);
    expect(JSON.stringify(result)).not.toMatch(UNPRINTABLE);
    expect(audit.records).toMatchObject([{ decision: "deny", rule: NET_CANONICAL_RULE, ok: false }]);
    expect(server.hits).toEqual([]);
  });

  it("is never requested, even in a session where no layer looked at it", async () => {
    const server = await startServer();
    const { session } = await webSession({ layers: [] });
    for (const [, build, code] of spellings) {
      const { result } = await session.call({
        tool: "plugin_web_fetch",
        args: { url: build(server.origin, server.port) },
      });
      expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED", details: { urlCode: code } } });
    }
    expect(server.hits).toEqual([]);
  });

  it.each([
    ["the canonical URL", "/public/page", "/public/page"],
    ["an upper-case scheme and a fragment", "/public/page#section", "/public/page"],
    ["an encoded space and a non-ASCII name", "/public/a%20b/caf%C3%A9", "/public/a%20b/caf%C3%A9"],
    ["an encoded slash in the query", "/public/page?u=a%2Fb&n=1", "/public/page?u=a%2Fb&n=1"],
    ["a dotted name that is no dot segment", "/public/.well-known/a..b", "/public/.well-known/a..b"],
  ])("fetches exactly what was decided: %s", async (_label, path, requested) => {
    const { server, layer } = await deployed();
    const { session, audit } = await webSession({ layers: [layer] });
    const url = `HTTP://127.0.0.1:${server.port}${path}`;
    const dry = await session.dryRun({ tool: "plugin_web_fetch", args: { url } });
    expect(dry).toMatchObject({ decision: "allow", layer: "deployment", rule: "public" });
    const { result } = await session.call({ tool: "plugin_web_fetch", args: { url } });
    expect(result).toMatchObject({ ok: true, data: { url: `${server.origin}${requested}`, status: 200 } });
    expect(server.hits).toEqual([requested]);
    expect(audit.records).toMatchObject([{ decision: "allow", rule: "public", ok: true }]);
  });
});

describe("web.search declares its endpoint the same way", () => {
  const endpoints: [string, (origin: string, port: number) => string, string][] = [
    [
      "a trailing dot on the host",
      (_o, port) => `http://127.0.0.1.:${port}/public/search`,
      "URL_NOT_CANONICAL",
    ],
    [
      "ideographic full stops (。)",
      (_o, port) => `http://127。0。0。1:${port}/public/search`,
      "URL_NOT_CANONICAL",
    ],
    [
      "full-width full stops (．)",
      (_o, port) => `http://127．0．0．1:${port}/public/search`,
      "URL_NOT_CANONICAL",
    ],
    ["encoded dots (%2e%2e)", (o) => `${o}/public/x/%2e%2e/search`, "URL_DOT_SEGMENT"],
    ["double-encoded dots (%252e)", (o) => `${o}/public/%252e%252e/search`, "URL_DOT_SEGMENT"],
    ["raw dot segments (..)", (o) => `${o}/public/x/../search`, "URL_DOT_SEGMENT"],
    ["a Tomcat dot segment (..;)", (o) => `${o}/public/..;/search`, "URL_DOT_SEGMENT"],
    ["an encoded slash (%2f)", (o) => `${o}/public/a%2fsearch`, "URL_ENCODED_SEPARATOR"],
    ["an encoded backslash (%5c)", (o) => `${o}/public/a%5csearch`, "URL_ENCODED_SEPARATOR"],
    ["a backslash", (o) => `${o}/public\\search`, "URL_NOT_CANONICAL"],
    ["a raw tab", (o) => `${o}/pub\tlic/search`, "URL_CONTROL_CHARACTER"],
    ["a raw line feed", (o) => `${o}/pub\nlic/search`, "URL_CONTROL_CHARACTER"],
    ["an encoded NUL (%00)", (o) => `${o}/public/search%00`, "URL_CONTROL_CHARACTER"],
    ["a raw bidi override (U+202E)", (o) => `${o}/public/\u202Ehcraes`, "URL_INVISIBLE_CHARACTER"],
    ["a zero-width space (U+200B)", (o) => `${o}/public/sea\u200Brch`, "URL_INVISIBLE_CHARACTER"],
  ];

  it.each(endpoints)("an endpoint with %s is refused before any request", async (_label, build, code) => {
    const { server, prefix, layer } = await deployed();
    const endpoint = build(server.origin, server.port);
    expect(new URL(endpoint).href.startsWith(prefix)).toBe(true);
    const { session, diagnostics } = await webSession({ layers: [layer], options: { search: { endpoint } } });
    expect(diagnostics).toEqual([]);
    const { result, decision } = await session.call({ tool: "plugin_web_search", args: { query: "pablo" } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(decision).toMatchObject({ verdict: "deny", layer: "deployment", rule: NET_CANONICAL_RULE });
    expect(decision.reason).toContain(`: ${code}: `);
    expect(decision.reason).not.toMatch(UNPRINTABLE);
    expect(server.hits).toEqual([]);
  });

  it("a query the endpoint would carry with a control or invisible character is refused", async () => {
    const { server, layer } = await deployed();
    const { session } = await webSession({
      layers: [layer],
      options: { search: { endpoint: `${server.origin}/public/search` } },
    });
    for (const [query, code] of [
      ["line\nbreak", "URL_CONTROL_CHARACTER"],
      ["bidi \u202E", "URL_INVISIBLE_CHARACTER"],
    ]) {
      const { decision } = await session.call({ tool: "plugin_web_search", args: { query } });
      expect(decision).toMatchObject({ verdict: "deny", rule: NET_CANONICAL_RULE });
      expect(decision.reason).toContain(`: ${code}: `);
    }
    expect(server.hits).toEqual([]);
  });

  it("requests exactly the canonical endpoint it declared", async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ results: [{ title: "t", url: "https://a.example/", snippet: "s" }] }));
    });
    const layer = defineLayer({
      id: "deployment",
      net: { default: "deny", allow: [{ id: "search", prefix: `${server.origin}/public/` }] },
    });
    const { session } = await webSession({
      layers: [layer],
      options: { search: { endpoint: `HTTP://127.0.0.1:${server.port}/public/search?key=a%2Fb` } },
    });
    const { result, decision } = await session.call({
      tool: "plugin_web_search",
      args: { query: "a/b c", limit: 2 },
    });
    expect(decision).toMatchObject({ verdict: "allow", rule: "search" });
    expect(result.ok).toBe(true);
    expect(server.hits).toEqual(["/public/search?key=a%2Fb&q=a%2Fb+c&limit=2"]);
  });
});
