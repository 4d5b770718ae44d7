import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineLayer } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { noCredentials } from "../test-support/servers.js";
import { McpOAuthCode } from "./codes.js";
import { loginMcpServer, MAX_AUTHORIZATIONS } from "./login.js";
import { followingBrowser, type OAuthFixture, startOAuthFixture } from "./test-support/oauth-fixture.js";

function tokenDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-oauth-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "state", "mcp-oauth");
}

function serverEntry(fixture: OAuthFixture, extra: Record<string, unknown> = {}) {
  return { transport: "http", url: fixture.mcpUrl, allow_loopback_http: true, auth: "oauth", ...extra };
}

async function login(fixture: OAuthFixture, dir: string, extra: Record<string, unknown> = {}, env = {}) {
  const lines: string[] = [];
  const result = await loginMcpServer({
    name: "notes",
    config: serverEntry(fixture, extra),
    credentials: noCredentials,
    layers: [],
    tokenDir: dir,
    env: { BROWSER: followingBrowser(), ...env },
    stderr: (text) => lines.push(text),
    signal: new AbortController().signal,
  });
  return { result, stderr: lines.join("") };
}

describe("pablo mcp login (the MCP authorization flow)", () => {
  it("authorizes with PKCE S256, state and resource, and stores the token 0600 in a 0700 directory", async () => {
    const fixture = await startOAuthFixture({ listScopes: ["notes:read"] });
    const dir = tokenDir();
    const { result, stderr } = await login(fixture, dir);
    expect(result).toMatchObject({ authorized: true, authorizations: 1, scope: "notes:read" });
    expect(stderr).toContain("opened the authorization page for notes with $BROWSER");

    const authorize = fixture.seen.find((s) => s.path === "/authorize");
    expect(authorize?.query).toMatchObject({
      response_type: "code",
      code_challenge_method: "S256",
      resource: fixture.mcpUrl,
      scope: "notes:read",
    });
    expect(authorize?.query["state"]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize?.query["redirect_uri"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const token = fixture.seen.find((s) => s.path === "/token");
    expect(token?.form).toMatchObject({ grant_type: "authorization_code", resource: fixture.mcpUrl });
    expect(token?.form["code_verifier"]).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);

    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(join(dir, file as string), "utf8"));
    expect(stored.serverUrl).toBe(fixture.mcpUrl);
    expect(fixture.issued).toContain(stored.tokens.access_token);
    // The token was tried on the server before it was stored.
    expect(
      fixture.seen.some(
        (s) => s.where === "mcp" && s.authorization === `Bearer ${stored.tokens.access_token}`,
      ),
    ).toBe(true);
  });

  it("omits scope when neither the challenge nor the metadata names one", async () => {
    const fixture = await startOAuthFixture();
    await login(fixture, tokenDir());
    expect(fixture.seen.find((s) => s.path === "/authorize")?.query["scope"]).toBeUndefined();
  });

  it("steps up on insufficient_scope and stops after the retry limit, storing nothing", async () => {
    const fixture = await startOAuthFixture({
      listScopes: ["notes:read", "notes:admin"],
      grantable: ["notes:read"],
    });
    const dir = tokenDir();
    await expect(login(fixture, dir)).rejects.toMatchObject({ code: McpOAuthCode.STEP_UP_LIMIT });
    expect(fixture.seen.filter((s) => s.path === "/authorize")).toHaveLength(MAX_AUTHORIZATIONS);
    expect(existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".json")) : []).toEqual([]);
  });

  it("refuses a protected-resource metadata naming another resource before any authorization", async () => {
    const fixture = await startOAuthFixture({ resource: "https://evil.example.com/mcp" });
    await expect(login(fixture, tokenDir())).rejects.toMatchObject({ code: McpOAuthCode.RESOURCE_MISMATCH });
    expect(fixture.seen.some((s) => s.path === "/authorize" || s.path === "/register")).toBe(false);
  });

  it("refuses a plain-http authorization server that is not loopback, without requesting it", async () => {
    const fixture = await startOAuthFixture({ authorizationServer: "http://198.51.100.7/" });
    await expect(login(fixture, tokenDir())).rejects.toMatchObject({
      code: McpOAuthCode.NET_REFUSED,
      message: expect.stringContaining("plain http is allowed only to a loopback host"),
    });
    expect(fixture.seen.some((s) => s.where === "as")).toBe(false);
  });

  it("asks the net dimension about every authorization-server URL", async () => {
    const fixture = await startOAuthFixture();
    const layer = defineLayer({
      id: "deployment",
      net: { deny: [{ id: "no-as", prefix: `${fixture.asUrl}/` }] },
    });
    const lines: string[] = [];
    await expect(
      loginMcpServer({
        name: "notes",
        config: serverEntry(fixture),
        credentials: noCredentials,
        layers: [layer],
        tokenDir: tokenDir(),
        env: { BROWSER: followingBrowser() },
        stderr: (text) => lines.push(text),
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({
      code: McpOAuthCode.NET_REFUSED,
      message: expect.stringContaining("deployment/no-as"),
    });
    expect(fixture.seen.some((s) => s.where === "as")).toBe(false);
  });

  it("abandons the login when the redirect carries another state", async () => {
    const fixture = await startOAuthFixture();
    const dir = mkdtempSync(join(tmpdir(), "pablo-browser-"));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, "tamper.mjs");
    writeFileSync(
      script,
      `const res = await fetch(process.argv[2], { redirect: "manual" });
const back = new URL(res.headers.get("location"));
back.searchParams.set("state", "forged");
await fetch(back);
`,
    );
    await expect(
      login(fixture, tokenDir(), {}, { BROWSER: `${process.execPath} ${script}` }),
    ).rejects.toMatchObject({
      code: McpOAuthCode.STATE_MISMATCH,
    });
    expect(fixture.seen.some((s) => s.path === "/token")).toBe(false);
  });

  it("times out with a coded error when no browser comes back, printing the URL when $BROWSER is unset", async () => {
    const fixture = await startOAuthFixture();
    const started = Date.now();
    const lines: string[] = [];
    await expect(
      loginMcpServer({
        name: "notes",
        config: serverEntry(fixture, { login_timeout_ms: 1000 }),
        credentials: noCredentials,
        layers: [],
        tokenDir: tokenDir(),
        env: {},
        stderr: (text) => lines.push(text),
        signal: new AbortController().signal,
      }),
    ).rejects.toMatchObject({ code: McpOAuthCode.LOGIN_TIMEOUT });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lines.join("")).toMatch(/open this URL in a browser:\n {2}http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  });
});
