import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAction, loadSigned } from "../test-support/catalog-fixture.js";

let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/api/ok")
      return void response.end("hello\nAuthorization: Bearer abcdefghijklmnop\n");
    if (request.url === "/api/missing") return void response.writeHead(404).end("no such thing");
    if (request.url === "/api/redirect")
      return void response.writeHead(302, { location: "/secret/inside" }).end();
    if (request.url === "/api/big") return void response.end("x".repeat(10_000));
    if (request.url === "/secret/inside") return void response.end("secret");
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

function action() {
  return loadSigned(`
name: fetch_api
description: GET the API.
risk: read
builtin: http_get
builtin_config: { prefixes: ["${base}/api/"], max_bytes: 1000 }
redact: { builtin: [secrets] }
filters: [match]
`).action("fetch_api");
}

describe("http_get", () => {
  it("GETs a URL inside the signed prefix, redacting the body", async () => {
    const result = await callAction(action(), { params: { url: `${base}/api/ok` } });
    expect(result).toMatchObject({
      ok: true,
      data: { status: 200, text: "hello\nAuthorization: Bearer [REDACTED]\n", bodyTruncated: false },
    });
  });

  it("reports a non-2xx status as a result, not a transport error", async () => {
    const result = await callAction(action(), { params: { url: `${base}/api/missing` } });
    expect(result).toMatchObject({ ok: true, data: { status: 404, text: "no such thing" } });
  });

  it("does not follow a redirect, even to a path it could not GET directly", async () => {
    const result = await callAction(action(), { params: { url: `${base}/api/redirect` } });
    expect(result).toMatchObject({ ok: true, data: { status: 302, location: "/secret/inside", text: "" } });
  });

  it("bounds the response body", async () => {
    const result = await callAction(action(), { params: { url: `${base}/api/big` } });
    expect(result).toMatchObject({
      ok: true,
      data: { bodyBytes: 1000, bodyTruncated: true, scanLimited: true },
    });
  });

  it.each([
    ["another path", "/secret/inside"],
    ["a dot segment", "/api/../secret/inside"],
    ["an encoded dot segment", "/api/%2e%2e/secret/inside"],
    ["an encoded separator", "/api%2fok"],
  ])("refuses %s outside the prefix", async (_name, path) => {
    const result = await callAction(action(), { params: { url: `${base}${path}` } });
    expect(result).toMatchObject({ ok: false, error: { code: "URL_REFUSED" } });
  });

  it("refuses another host and user information", async () => {
    expect(await callAction(action(), { params: { url: "http://example.com/api/ok" } })).toMatchObject({
      ok: false,
      error: { code: "URL_REFUSED" },
    });
    const withUser = base.replace("http://", "http://user:pw@");
    expect(await callAction(action(), { params: { url: `${withUser}/api/ok` } })).toMatchObject({
      ok: false,
      error: { code: "URL_REFUSED" },
    });
  });

  it("refuses a builtin_config that would widen a limit", () => {
    expect(() =>
      loadSigned(`
name: wide
description: d
risk: read
builtin: http_get
builtin_config: { prefixes: ["${base}/"], max_bytes: 999999999 }
`),
    ).toThrow(/builtin_config/);
  });
});
