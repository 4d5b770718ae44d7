import fc from "fast-check";
import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  type AuthorityLayer,
  checkCanonicalUrl,
  createCatalog,
  createKernel,
  defineLayer,
  defineTool,
  evaluateAuthority,
  MemoryAuditSink,
  ok,
  PabloError,
} from "./index.js";

const api = defineLayer({
  id: "deployment",
  net: {
    allow: [
      { id: "api", prefix: "https://api.example.com/v1/" },
      { id: "exact", prefix: "https://exact.example.com/v1" },
      { id: "docs", prefix: "https://docs.example.com" },
      { id: "alt", prefix: "https://alt.example.com:8443/" },
    ],
    deny: [{ id: "admin", prefix: "https://api.example.com/v1/admin/" }],
  },
});
const decide = (url: string, layers: readonly AuthorityLayer[] = [api]) =>
  evaluateAuthority(layers, [{ dimension: "net", url }]);
const ruleOf = (url: string) => {
  const d = decide(url);
  return d.verdict === "allow" ? d.rule : `deny:${d.rule}`;
};

describe("URL prefixes", () => {
  it.each([
    ["https://api.example.com/v1/", "api"],
    ["https://api.example.com/v1/items?x=1#f", "api"],
    ["https://api.example.com:443/v1/items", "api"],
    ["https://api.example.com/v1", "deny:default"],
    ["https://api.example.com/v1?/items", "deny:default"],
    ["https://api.example.com/v1#/items", "deny:default"],
    ["https://api.example.com/v10/", "deny:default"],
    ["https://api.example.com/v1;x/items", "deny:default"],
    ["https://exact.example.com/v1", "exact"],
    ["https://exact.example.com/v1/more", "exact"],
    ["https://exact.example.com/v10", "deny:default"],
    ["https://docs.example.com", "docs"],
    ["https://docs.example.com/any/where?q", "docs"],
    ["https://docs.example.com:8443/", "deny:default"],
    ["http://docs.example.com/", "deny:default"],
    ["wss://docs.example.com/", "deny:default"],
    ["https://alt.example.com:8443/x", "alt"],
    ["https://alt.example.com/x", "deny:default"],
    ["https://alt.example.com:443/x", "deny:default"],
  ])("%s -> %s", (url, expected) => {
    expect(ruleOf(url)).toBe(expected);
  });

  it("lets a deny prefix refuse its directory's own name and any ;parameters on its segments", () => {
    for (const url of [
      "https://api.example.com/v1/admin",
      "https://api.example.com/v1/admin/",
      "https://api.example.com/v1/admin/users",
      "https://api.example.com/v1/admin;jsessionid=1",
      "https://api.example.com/v1/admin;x/users",
      "https://api.example.com/v1;x/admin/users",
    ]) {
      expect([url, ruleOf(url)]).toEqual([url, "deny:admin"]);
    }
    expect(ruleOf("https://api.example.com/v1/administrator")).toBe("api");
    expect(ruleOf("https://api.example.com/v1/x/admin")).toBe("api");
  });

  it("applies a deny list to every spelling a server could read as the denied path", () => {
    const denyOnly = defineLayer({
      id: "ceiling",
      net: { deny: [{ id: "metadata", prefix: "http://169.254.169.254/latest/" }] },
    });
    const spellings = fc.record({
      host: fc.constantFrom(
        "169.254.169.254",
        "169.254.169.254.",
        "2852039166",
        "0xa9.0xfe.0xa9.0xfe",
        "169.254.43518",
      ),
      port: fc.constantFrom("", ":80", ":080"),
      first: fc.constantFrom(
        "latest",
        "%6catest",
        "LATEST",
        "latest;x",
        "x/..",
        "x/%2e%2e",
        "x/%252e%252e",
        "x/..;",
      ),
      sep: fc.constantFrom("/", "//", "%2f", "%252f", "\\", "%5c", "/./", "/%2e/"),
      rest: fc.constantFrom("meta-data", "user-data/", "%6d%65ta-data"),
    });
    fc.assert(
      fc.property(spellings, ({ host, port, first, sep, rest }) => {
        const url = `http://${host}${port}/${first}${sep}${rest}`;
        const d = decide(url, [denyOnly]);
        // Only a spelling whose one reading lies outside the denied tree may pass.
        if (d.verdict === "allow") {
          const check = checkCanonicalUrl(url);
          expect(check.ok).toBe(true);
          if (check.ok) expect(check.url.segments[0]).toBe("LATEST");
        } else {
          expect(["metadata", "kernel.net-canonical"]).toContain(d.rule);
        }
      }),
      { numRuns: 600 },
    );
  });

  it("allows only URLs whose every reading lies under the allowed prefix", () => {
    const tokens = [
      "v1",
      "items",
      "admin",
      "..",
      ".",
      "%2e",
      "%2E",
      "%252e",
      "%2f",
      "%5c",
      ";",
      "..;",
      "",
      "%c0%ae",
    ];
    const more = ["%41", "\\", "?", "#", "%00", "%0a", "\u202e", "\uff0e", "%ef%bc%8f", "x"];
    fc.assert(
      fc.property(
        fc.constantFrom("api.example.com", "API.example.com", "api.example.com.", "api\u3002example.com"),
        fc.array(fc.constantFrom(...tokens, ...more), { maxLength: 6 }),
        fc.constantFrom("/", ""),
        (host, pieces, join) => {
          const url = `https://${host}/${pieces.join(join)}`;
          const d = decide(url);
          if (d.verdict !== "allow") return;
          expect(d.rule).toBe("api");
          // Read the path as the most lenient server would: decode until nothing changes.
          let path = new URL(url).pathname;
          for (let previous = ""; previous !== path; ) {
            previous = path;
            path = decodeURIComponent(path);
          }
          const segments = path.split(/[/\\]/).slice(1);
          expect(segments[0]).toBe("v1");
          expect(segments.length).toBeGreaterThan(1);
          expect(segments.some((s) => /^\.(?:$|[.;])/.test(s))).toBe(false);
          expect(segments[1]?.split(";")[0]).not.toBe("admin");
        },
      ),
      { numRuns: 1500 },
    );
  });
});

describe("the kernel's canonical check on every net access", () => {
  it("names the code and reason in the decision, cited as kernel.net-canonical", () => {
    const d = decide("https://api.example.com/v1/..;/admin");
    expect(d).toMatchObject({
      verdict: "deny",
      layer: "deployment",
      rule: "kernel.net-canonical",
      dimension: "net",
    });
    expect(d.reason).toMatch(
      /^net https:\/\/api\.example\.com\/v1\/\.\.;\/admin: URL_DOT_SEGMENT: segment \.\.;/,
    );
  });

  it("refuses a non-canonical URL even in a layer that does not restrict the network", () => {
    const tools = defineLayer({ id: "tools", tool: { allow: [{ id: "all", match: "*" }] } });
    expect(decide("https://a.example/x%2f..%2fy", [tools])).toMatchObject({
      verdict: "deny",
      layer: "tools",
      rule: "kernel.net-canonical",
    });
    expect(decide("https://a.example/x", [tools]).verdict).toBe("allow");
  });

  it("escapes control and invisible characters in the reason it prints", () => {
    const d = decide("https://api.example.com/v1/a\u202eb\r\nX-Injected: 1");
    expect(d.reason).not.toMatch(/[\p{Cc}\p{Cf}]/u);
    expect(d.reason).toContain("URL_CONTROL_CHARACTER");
  });

  it("is what a dry run prints and what the real call decides", async () => {
    const fetchTool = defineTool({
      name: "test.fetch",
      description: "Declares one net access and fetches nothing.",
      summary: "Fetch",
      inputSchema: Type.Object(
        { url: Type.String({ description: "The URL to fetch." }) },
        { additionalProperties: false },
      ),
      risk: "low",
      effects: ["net"],
      category: "read",
      mutates: false,
      accesses: (args) => [{ dimension: "net", url: args.url }],
      execute: async (args) => ok({ fetched: args.url }),
    });
    const audit = new MemoryAuditSink();
    const session = createKernel({ audit }).openSession({
      catalog: createCatalog([fetchTool]),
      layers: [api],
      mode: "agent",
      permission: { mode: "auto" },
    });
    for (const [url, code] of [
      ["https://api.example.com./v1/x", "URL_NOT_CANONICAL"],
      ["https://api.example.com/v1/%252e%252e/admin", "URL_DOT_SEGMENT"],
      ["https://api.example.com/v1/a%c0%afb", "URL_ENCODED_SEPARATOR"],
      ["https://api.example.com/v1/a%00", "URL_CONTROL_CHARACTER"],
    ] as const) {
      const args = { url };
      const dry = await session.dryRun({ tool: "test_fetch", args });
      expect(dry).toMatchObject({ decision: "deny", layer: "deployment", rule: "kernel.net-canonical" });
      expect(dry.reason).toContain(code);
      const { result, decision } = await session.call({ tool: "test_fetch", args });
      expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
      expect(decision).toMatchObject({ rule: "kernel.net-canonical", reason: dry.reason });
    }
    const allowed = await session.call({ tool: "test_fetch", args: { url: "https://api.example.com/v1/x" } });
    expect(allowed.result).toMatchObject({ ok: true });
  });
});

describe("net rules in defineLayer", () => {
  const problem = (prefix: string) => {
    try {
      defineLayer({ id: "l", net: { allow: [{ id: "n", prefix }] } });
      return "ok";
    } catch (error) {
      return error instanceof PabloError ? error.message : "other";
    }
  };
  it.each([
    ["example.com", /not a URL.*URL_INVALID/],
    ["https://api.example.com./v1/", /not canonical.*URL_NOT_CANONICAL/],
    ["https://api.example.com/v1/%2e%2e/", /URL_DOT_SEGMENT/],
    ["https://api.example.com/a%2fb/", /URL_ENCODED_SEPARATOR/],
    ["https://api.example.com//v1/", /URL_NOT_CANONICAL/],
    ["https://api.example.com/v1/?x=1", /query or a fragment/],
    ["https://api.example.com/v1/#top", /query or a fragment/],
    ["https://user@api.example.com/v1/", /user information/],
    ["https://api.example.com/v1/", /^ok$/],
    ["https://bücher.example/", /^ok$/],
  ])("%s", (prefix, expected) => {
    expect(problem(prefix)).toMatch(expected);
  });
});
