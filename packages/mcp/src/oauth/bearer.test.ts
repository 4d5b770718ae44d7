import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryEventSink } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { openMcpCatalog } from "../catalog.js";
import { McpAdmissionCode } from "../diagnostics.js";
import { startFixtureHttp } from "../test-support/http-fixture.js";
import { sessionOver, textOf } from "../test-support/kernel-session.js";
import { noCredentials } from "../test-support/servers.js";
import { logoutMcpServer, mcpAuthorizationStates } from "./authorization-state.js";
import { loginMcpServer } from "./login.js";
import { followingBrowser, type OAuthFixture, startOAuthFixture } from "./test-support/oauth-fixture.js";
import { TokenStore } from "./token-store.js";

function tokenDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-oauth-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "mcp-oauth");
}

function entry(fixture: OAuthFixture, extra: Record<string, unknown> = {}) {
  return { transport: "http", url: fixture.mcpUrl, allow_loopback_http: true, auth: "oauth", ...extra };
}

async function loggedIn(fixture: OAuthFixture, dir: string): Promise<void> {
  await loginMcpServer({
    name: "notes",
    config: entry(fixture),
    credentials: noCredentials,
    layers: [],
    tokenDir: dir,
    env: { BROWSER: followingBrowser() },
    stderr: () => undefined,
    signal: new AbortController().signal,
  });
}

async function open(servers: Record<string, unknown>, dir: string) {
  const mcp = await openMcpCatalog({ servers, credentials: noCredentials, tokenDir: dir });
  onTestFinished(() => mcp.close());
  return mcp;
}

describe("tasks use the stored token", () => {
  it("sends the token only to its server, and it never reaches results, audit records or events", async () => {
    const fixture = await startOAuthFixture();
    const dir = tokenDir();
    await loggedIn(fixture, dir);
    const other = await startFixtureHttp([
      {
        name: "peek",
        call: (req) => ({
          content: [{ type: "text", text: `authorization=${req.headers.authorization ?? "none"}` }],
        }),
      },
    ]);
    onTestFinished(() => other.close());
    const mcp = await open(
      { notes: entry(fixture), other: { transport: "http", url: other.url, allow_loopback_http: true } },
      dir,
    );
    const events = new MemoryEventSink();
    const t = await sessionOver(mcp, { events, kernel: { captureContent: true } });

    expect(textOf((await t.session.call({ tool: "mcp_notes_hello", args: {} })).result)).toBe("hello");
    expect(textOf((await t.session.call({ tool: "mcp_other_peek", args: {} })).result)).toBe(
      "authorization=none",
    );
    const leaked = await t.session.call({ tool: "mcp_notes_leak", args: {} });
    expect(textOf(leaked.result)).toBe("you sent [REDACTED]");

    const everything = JSON.stringify([leaked.serialized, t.audit.records, events.events, mcp.diagnostics]);
    for (const token of fixture.issued) expect(everything).not.toContain(token);
    expect(fixture.issued.length).toBeGreaterThan(0);
  });

  it("refreshes a token about to expire before sending it", async () => {
    const fixture = await startOAuthFixture({ expiresIn: 30 });
    const dir = tokenDir();
    await loggedIn(fixture, dir);
    const [first] = fixture.issued;
    const mcp = await open({ notes: entry(fixture) }, dir);
    expect(mcp.diagnostics).toEqual([]);
    const t = await sessionOver(mcp);
    expect(textOf((await t.session.call({ tool: "mcp_notes_hello", args: {} })).result)).toBe("hello");

    expect(fixture.seen.filter((s) => s.path === "/token").map((s) => s.form["grant_type"])).toContain(
      "refresh_token",
    );
    const stored = new TokenStore(dir).load(fixture.mcpUrl);
    expect(stored?.tokens?.access_token).not.toBe(first);
    const afterLogin = fixture.seen.filter((s) => s.where === "mcp" && s.path === "/mcp").slice(-2);
    expect(afterLogin.every((s) => s.authorization === `Bearer ${stored?.tokens?.access_token}`)).toBe(true);
  });

  it("leaves a server without a token out with MCP_AUTH_REQUIRED naming the login, and a required one fails admission", async () => {
    const fixture = await startOAuthFixture();
    const dir = tokenDir();
    const mcp = await open({ notes: entry(fixture) }, dir);
    expect(mcp.diagnostics).toEqual([
      { server: "notes", code: "MCP_AUTH_REQUIRED", message: "not authorized: run `pablo mcp login notes`" },
    ]);
    expect(fixture.seen).toEqual([]);
    await expect(
      openMcpCatalog({
        servers: { notes: entry(fixture, { required: true }) },
        credentials: noCredentials,
        tokenDir: dir,
      }),
    ).rejects.toMatchObject({
      code: McpAdmissionCode.REQUIRED_SERVER_FAILED,
      message: expect.stringContaining("pablo mcp login notes"),
    });
    expect(mcpAuthorizationStates({ notes: entry(fixture) }, dir)).toMatchObject([
      { server: "notes", state: "not-authorized", summary: "not authorized: run `pablo mcp login notes`" },
    ]);
  });

  it("logout removes the token file, and the server is not authorized again", async () => {
    const fixture = await startOAuthFixture();
    const dir = tokenDir();
    await loggedIn(fixture, dir);
    expect(mcpAuthorizationStates({ notes: entry(fixture) }, dir)[0]?.state).toBe("authorized");
    expect(logoutMcpServer("notes", entry(fixture), dir)).toMatchObject({ removed: true });
    expect(readdirSync(dir)).toEqual([]);
    expect(logoutMcpServer("notes", entry(fixture), dir)).toMatchObject({ removed: false });
    const mcp = await open({ notes: entry(fixture) }, dir);
    expect(mcp.diagnostics.map((d) => d.code)).toEqual(["MCP_AUTH_REQUIRED"]);
  });

  it("fails a call refused for insufficient scope without re-sending it, and the next login asks for that scope", async () => {
    const fixture = await startOAuthFixture({ listScopes: ["notes:read"], callScopes: ["notes:write"] });
    const dir = tokenDir();
    await loggedIn(fixture, dir);
    const mcp = await open({ notes: entry(fixture) }, dir);
    const t = await sessionOver(mcp);
    const refused = await t.session.call({ tool: "mcp_notes_hello", args: {} });
    expect(refused.result.ok).toBe(false);
    expect(JSON.stringify(refused.result)).toContain("pablo mcp login notes");
    expect(fixture.calls).toEqual([]);
    const posts = fixture.seen.filter((s) => s.where === "mcp" && s.path === "/mcp" && s.method === "POST");
    const callPosts = posts.length;

    const stored = JSON.parse(readFileSync(new TokenStore(dir).fileFor(fixture.mcpUrl), "utf8"));
    expect(stored.challengedScope).toBe("notes:read notes:write");
    await loggedIn(fixture, dir);
    expect(fixture.seen.filter((s) => s.path === "/authorize").at(-1)?.query["scope"]).toBe(
      "notes:read notes:write",
    );
    expect(callPosts).toBeGreaterThan(0);
  });
});
