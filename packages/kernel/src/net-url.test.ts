// Over 400 lines on purpose: one table per class of hostile URL spelling (host, path, encoding,
// control and invisible characters) beside its property test, so a reviewer sees every class at once.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkCanonicalUrl, UrlCode } from "./index.js";

const codeOf = (raw: string): string => {
  const check = checkCanonicalUrl(raw);
  return check.ok ? "ok" : check.code;
};
const BASE = "https://api.example.com/v1/";
const UNPRINTABLE_IN_REASON = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

// Spellings of one character as a server might decode them.
const hex = (byte: number, upper: boolean) => {
  const h = byte.toString(16).padStart(2, "0");
  return `%${upper ? h.toUpperCase() : h}`;
};
const utf8 = (char: string) => [...new TextEncoder().encode(char)];
/** `%` nested `depth - 1` times as `%25`, so a server decoding `depth` times sees the bytes. */
const nest = (escapes: string, depth: number) => escapes.replace(/%/g, `%${"25".repeat(depth - 1)}`);
const overlong = (code: number): string[][] => {
  const b = [
    [0xc0 | (code >> 6), 0x80 | (code & 0x3f)],
    [0xe0, 0x80 | (code >> 6), 0x80 | (code & 0x3f)],
    [0xf0, 0x80, 0x80 | (code >> 6), 0x80 | (code & 0x3f)],
  ];
  return b.map((bytes) => bytes.map((x) => hex(x, false)));
};
/** Every encoded spelling of `char` we try: hex case, depth 1..4, and overlong forms. */
const encodedSpelling = (char: string): fc.Arbitrary<string> =>
  fc
    .record({
      bytes: fc.constantFrom(
        utf8(char).map((x) => hex(x, false)),
        ...(char.charCodeAt(0) < 0x80 ? overlong(char.charCodeAt(0)) : []),
      ),
      upper: fc.boolean(),
      depth: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ bytes, upper, depth }) => nest(upper ? bytes.join("").toUpperCase() : bytes.join(""), depth));

const safeSegment = fc.stringMatching(/^[a-z0-9_~-][a-z0-9._~-]{0,7}$/);
const safePath = fc.array(safeSegment, { maxLength: 4 }).map((s) => s.join("/"));

describe("the register of URL codes", () => {
  it("lists each code once, and each is what some spelling is refused with", () => {
    expect(Object.values(UrlCode)).toEqual([
      "URL_INVALID",
      "URL_NOT_CANONICAL",
      "URL_CONTROL_CHARACTER",
      "URL_INVISIBLE_CHARACTER",
      "URL_ENCODED_SEPARATOR",
      "URL_DOT_SEGMENT",
    ]);
    const produced = ["x", "https://a.example./", "https://a.example/%00", "https://a.example/\u202e"]
      .concat(["https://a.example/%2f", "https://a.example/%2e"])
      .map(codeOf);
    expect(produced).toEqual(Object.values(UrlCode));
  });
});

describe("canonical URLs", () => {
  it.each([
    ["https://api.example.com/v1/items", "https://api.example.com/v1/items", "443", ["v1", "items"]],
    ["HTTPS://API.Example.COM/v1/", "https://api.example.com/v1/", "443", ["v1", ""]],
    ["https://api.example.com", "https://api.example.com/", "443", [""]],
    ["https://api.example.com:443/v1", "https://api.example.com/v1", "443", ["v1"]],
    ["http://api.example.com:80/", "http://api.example.com/", "80", [""]],
    ["wss://api.example.com:443/s", "wss://api.example.com/s", "443", ["s"]],
    ["https://api.example.com:8443/v1/", "https://api.example.com:8443/v1/", "8443", ["v1", ""]],
    ["https://bücher.example/a", "https://xn--bcher-kva.example/a", "443", ["a"]],
    ["https://BÜCHER.example/a", "https://xn--bcher-kva.example/a", "443", ["a"]],
    ["http://[::1]:8080/x", "http://[::1]:8080/x", "8080", ["x"]],
    ["https://a.example/.well-known/x", "https://a.example/.well-known/x", "443", [".well-known", "x"]],
    ["https://a.example/wiki/Bücher", "https://a.example/wiki/B%C3%BCcher", "443", ["wiki", "Bücher"]],
    ["https://a.example/a%7cb%3F", "https://a.example/a%7cb%3F", "443", ["a|b?"]],
    ["https://a.example/a%2541", "https://a.example/a%2541", "443", ["a%41"]],
    ["https://a.example/x?q=a%2Fb%5C..#%2e%2e", "https://a.example/x?q=a%2Fb%5C..#%2e%2e", "443", ["x"]],
    ["https://u:p@a.example/x", "https://u:p@a.example/x", "443", ["x"]],
  ])("accepts %s", (raw, href, port, segments) => {
    const check = checkCanonicalUrl(raw);
    expect(check).toMatchObject({ ok: true, url: { href, port, segments } });
  });

  it("accepts generated canonical URLs as the WHATWG parser reads them, and again their href", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("http", "https", "ws", "wss", "HTTPS"),
        fc.stringMatching(/^[a-z][a-z0-9-]{0,8}(\.[a-z][a-z0-9-]{0,8}){0,3}$/),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        safePath,
        fc.option(
          fc.stringMatching(/^[a-z0-9=&/%.]{0,10}$/).map((q) => q.replace(/%/g, "%2F")),
          {
            nil: undefined,
          },
        ),
        (scheme, host, port, path, query) => {
          fc.pre(!/(^|\.)xn--/.test(host));
          const raw = `${scheme}://${host}${port ? `:${port}` : ""}/${path}${query === undefined ? "" : `?${query}`}`;
          const check = checkCanonicalUrl(raw);
          expect(check).toMatchObject({ ok: true, url: { href: new URL(raw).href } });
          if (!check.ok) return;
          expect(checkCanonicalUrl(check.url.href)).toEqual(check);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("hosts", () => {
  const idnaDots = ["\u3002", "\uff0e", "\uff61"];
  it("refuses a trailing dot or an IDNA full stop anywhere in the host, however spelled", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,6}$/), { minLength: 2, maxLength: 4 }),
        fc.nat(),
        fc.constantFrom(".", "..", ...idnaDots),
        fc.constantFrom("trailing", "between"),
        fc.constantFrom("", ":443", ":8443"),
        (labels, at, dot, where, port) => {
          fc.pre(where === "trailing" || idnaDots.includes(dot));
          const i = 1 + (at % (labels.length - 1));
          const host =
            where === "trailing"
              ? `${labels.join(".")}${dot}`
              : `${labels.slice(0, i).join(".")}${dot}${labels.slice(i).join(".")}`;
          const check = checkCanonicalUrl(`https://${host}${port}/v1/`);
          expect([host, check.ok ? "ok" : check.code]).toEqual([host, "URL_NOT_CANONICAL"]);
        },
      ),
      { numRuns: 300 },
    );
    for (const raw of [
      "https://api.example.com./",
      "https://API.EXAMPLE.COM./",
      "https://api.example.com.:443/",
      "https://api.example.com%2e/",
      "https://api\u3002example\u3002com/",
      "https://api.example.com\u3002/",
      "https://api.example.com\uff0e/",
      "https://api.example.com\uff61/",
      "http://127.0.0.1./",
      "https://api..example.com/",
      "https://.api.example.com/",
    ]) {
      expect([raw, codeOf(raw)]).toEqual([raw, "URL_NOT_CANONICAL"]);
    }
  });

  it("refuses any spelling of a host that the parser would rewrite", () => {
    for (const raw of [
      "http://2130706433/",
      "http://0x7f.1/",
      "http://0177.0.0.1/",
      "http://127.1/",
      "http://[0:0:0:0:0:0:0:1]/",
      "http://[::FFFF:127.0.0.1]/",
      "https://api%2Eexample.com/",
      "https://%61pi.example.com/",
      "https://\uff41\uff50\uff49.example.com/",
      "https://bu\u0308cher.example/",
      "https:///api.example.com/",
      "https:api.example.com/",
      "https:/api.example.com/",
    ]) {
      expect([raw, codeOf(raw)]).toEqual([raw, "URL_NOT_CANONICAL"]);
    }
  });
});

describe("ports", () => {
  it("reads an explicit default port as none and keeps every other port exactly", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(["http", 80], ["https", 443], ["ws", 80], ["wss", 443]),
        fc.integer({ min: 1, max: 65535 }),
        ([scheme, defaultPort], port) => {
          const explicit = checkCanonicalUrl(`${scheme}://a.example:${defaultPort}/x`);
          const none = checkCanonicalUrl(`${scheme}://a.example/x`);
          expect(explicit).toEqual(none);
          const other = checkCanonicalUrl(`${scheme}://a.example:${port}/x`);
          expect(other).toMatchObject({ ok: true, url: { port: String(port) } });
          expect(codeOf(`${scheme}://a.example:0${port}/x`)).toBe("URL_NOT_CANONICAL");
        },
      ),
      { numRuns: 200 },
    );
    expect(codeOf("https://a.example:/x")).toBe("URL_NOT_CANONICAL");
    expect(codeOf("https://a.example:65536/x")).toBe("URL_INVALID");
  });
});

describe("paths", () => {
  it("refuses an empty segment anywhere but the end", () => {
    fc.assert(
      fc.property(
        fc.array(safeSegment, { minLength: 1, maxLength: 4 }),
        fc.nat(),
        fc.integer({ min: 1, max: 3 }),
        (segments, at, empties) => {
          const parts = [...segments];
          parts.splice(at % (segments.length + 1), 0, ...Array<string>(empties).fill(""));
          const url = `https://a.example/${parts.join("/")}/x`;
          expect([url, codeOf(url)]).toEqual([url, "URL_NOT_CANONICAL"]);
        },
      ),
      { numRuns: 300 },
    );
    expect(codeOf("https://a.example//")).toBe("URL_NOT_CANONICAL");
    expect(codeOf("https://a.example/v1//")).toBe("URL_NOT_CANONICAL");
    expect(codeOf("https://a.example/v1/")).toBe("ok");
  });

  it("refuses an encoded / or \\ in any depth of encoding, overlong or full-width form", () => {
    const separator = fc.oneof(
      encodedSpelling("/"),
      encodedSpelling("\\"),
      fc.constantFrom("\uff0f", "\uff3c"),
      encodedSpelling("\uff0f"),
      encodedSpelling("\uff3c"),
    );
    fc.assert(
      fc.property(safeSegment, separator, safeSegment, (before, sep, after) => {
        const check = checkCanonicalUrl(`${BASE}${before}${sep}${after}/x`);
        expect(check).toMatchObject({ ok: false, code: "URL_ENCODED_SEPARATOR" });
        if (!check.ok) expect(check.reason).toContain(before);
      }),
      { numRuns: 600 },
    );
    for (const sep of [
      "%2f",
      "%2F",
      "%252f",
      "%25252F",
      "%5c",
      "%5C",
      "%255c",
      "%c0%af",
      "%c1%9c",
      "%e0%80%af",
    ]) {
      expect([sep, codeOf(`${BASE}a${sep}b`)]).toEqual([sep, "URL_ENCODED_SEPARATOR"]);
    }
  });

  it("refuses every dot segment, raw or encoded, and any segment starting with ..", () => {
    const dot = fc.oneof(
      fc.constant("."),
      encodedSpelling("."),
      fc.constant("\uff0e"),
      encodedSpelling("\uff0e"),
    );
    const segment = fc.oneof(
      fc
        .tuple(dot, dot, fc.constantFrom("", ";", ";jsessionid=1", "x", ".", "%20"))
        .map(([a, b, rest]) => `${a}${b}${rest}`),
      fc.tuple(dot, fc.constantFrom("", ";", ";x=1", "%20")).map(([a, rest]) => `${a}${rest}`),
    );
    fc.assert(
      fc.property(segment, fc.boolean(), (seg, last) => {
        const url = `${BASE}${seg}${last ? "" : "/admin"}`;
        expect([url, codeOf(url)]).toEqual([url, "URL_DOT_SEGMENT"]);
      }),
      { numRuns: 600 },
    );
    for (const seg of [
      "..",
      ".",
      "..;",
      ".;",
      "...",
      "..%3b",
      "%2e%2e",
      "%2E%2e",
      "%252e%252e",
      "%c0%ae%c0%ae",
      ".%2e",
    ]) {
      expect([seg, codeOf(`${BASE}${seg}/x`)]).toEqual([seg, "URL_DOT_SEGMENT"]);
    }
    expect(codeOf(`${BASE}a..b/x`)).toBe("ok");
    expect(codeOf(`${BASE}.well-known/x`)).toBe("ok");
  });

  it("refuses escapes of unreserved characters, stray % and escapes that are not UTF-8", () => {
    for (const seg of [
      "%41dmin",
      "%61",
      "%7e",
      "%5F",
      "%2D",
      "%30",
      "a%",
      "a%g0",
      "%e9",
      "%c3",
      "%ff",
      "%c0%80x",
    ]) {
      const code = seg === "%c0%80x" ? "URL_CONTROL_CHARACTER" : "URL_NOT_CANONICAL";
      expect([seg, codeOf(`${BASE}${seg}`)]).toEqual([seg, code]);
    }
    expect(codeOf(`${BASE}%c3%a9`)).toBe("ok");
  });

  it("refuses raw whitespace and backslashes instead of letting the parser rewrite them", () => {
    for (const raw of [
      `${BASE}a b`,
      ` ${BASE}`,
      `${BASE}\u00a0`,
      `${BASE}\u3000`,
      "https://a.example\\v1\\x",
    ]) {
      expect([raw, codeOf(raw)]).toEqual([raw, "URL_NOT_CANONICAL"]);
    }
  });
});

describe("control and invisible characters", () => {
  const controls = [
    ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
    "\u007f",
    ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(0x80 + i)),
    "\u2028",
    "\u2029",
  ];
  const invisibles = [
    "\u00ad",
    "\u061c",
    "\u180e",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u200f",
    "\u202a",
    "\u202b",
    "\u202c",
    "\u202d",
    "\u202e",
    "\u2060",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\ufeff",
  ];

  for (const [label, chars, code] of [
    ["control", controls, "URL_CONTROL_CHARACTER"],
    ["invisible", invisibles, "URL_INVISIBLE_CHARACTER"],
  ] as const) {
    it(`refuses a raw ${label} character anywhere in the URL, and never echoes it`, () => {
      const url = "https://u@api.example.com:8443/v1/items?q=1#top";
      fc.assert(
        fc.property(fc.constantFrom(...chars), fc.integer({ min: 0, max: url.length }), (char, at) => {
          const check = checkCanonicalUrl(url.slice(0, at) + char + url.slice(at));
          expect(check).toMatchObject({ ok: false, code });
          if (!check.ok) expect(check.reason).not.toMatch(UNPRINTABLE_IN_REASON);
        }),
        { numRuns: 500 },
      );
    });

    it(`refuses an encoded ${label} character in the path, query or fragment at any depth`, () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...chars).chain(encodedSpelling),
          fc.constantFrom("path", "query", "fragment"),
          (encoded, where) => {
            const url =
              where === "path"
                ? `${BASE}a${encoded}b`
                : where === "query"
                  ? `${BASE}x?q=a${encoded}b`
                  : `${BASE}x#a${encoded}b`;
            const check = checkCanonicalUrl(url);
            expect([url, check.ok ? "ok" : check.code]).toEqual([url, code]);
            if (!check.ok) expect(check.reason).not.toMatch(UNPRINTABLE_IN_REASON);
          },
        ),
        { numRuns: 500 },
      );
    });
  }
});

describe("any input", () => {
  it("gets a registered code or a canonical URL, never a throw", () => {
    const codes = new Set(["URL_INVALID", "URL_NOT_CANONICAL", "URL_CONTROL_CHARACTER"]);
    for (const c of ["URL_INVISIBLE_CHARACTER", "URL_ENCODED_SEPARATOR", "URL_DOT_SEGMENT"]) codes.add(c);
    const piece = fc.constantFrom(
      "https://",
      "http://",
      "a.example",
      "A.",
      ":443",
      ":",
      "/",
      "//",
      "\\",
      ".",
      "..",
      ";",
      "%",
      "%2e",
      "%2F",
      "%25",
      "%c0",
      "%ae",
      "?",
      "#",
      "@",
      "[::1]",
      "\u3002",
      "\u202e",
      "\n",
      "ü",
      "x",
    );
    fc.assert(
      fc.property(
        fc.array(fc.oneof(piece, fc.string({ maxLength: 3, unit: "binary" })), { maxLength: 12 }),
        (pieces) => {
          const check = checkCanonicalUrl(pieces.join(""));
          if (check.ok) expect(checkCanonicalUrl(check.url.href)).toEqual(check);
          else expect(codes.has(check.code)).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
