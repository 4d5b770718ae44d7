import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { onTestFinished } from "vitest";
import { type Listening, listen } from "../../test-support/http-fixture.js";

/** One request the fixture's authorization server or MCP server saw. */
export interface Seen {
  readonly where: "as" | "mcp";
  readonly method: string;
  readonly path: string;
  readonly query: Record<string, string>;
  readonly form: Record<string, string>;
  readonly authorization: string | undefined;
}

export interface FixtureOptions {
  /** Scopes `tools/list` needs (401 challenge names them). Default none. */
  readonly listScopes?: readonly string[];
  /** Scopes `tools/call` needs beyond `listScopes`; a token without them gets 403 insufficient_scope. */
  readonly callScopes?: readonly string[];
  /** `expires_in` of issued access tokens, in seconds. Default 3600. */
  readonly expiresIn?: number;
  /** Whether the token endpoint issues refresh tokens. Default true. */
  readonly refresh?: boolean;
  /** Overrides the protected-resource metadata's `resource`. */
  readonly resource?: string;
  /** Overrides the authorization server URL the metadata names (e.g. an http URL elsewhere). */
  readonly authorizationServer?: string;
  /** The only scopes the authorization server grants, whatever is asked. Default: what is asked. */
  readonly grantable?: readonly string[];
}

/**
 * A real OAuth 2.1 authorization server and a protected Streamable HTTP MCP server, both on
 * 127.0.0.1 in this process. The MCP server checks bearer tokens the authorization server
 * issued, answers 401 with `resource_metadata` and 403 `insufficient_scope`, and has tools
 * `hello` (text "hello") and `leak` (returns the bearer it received, to test scrubbing).
 */
export interface OAuthFixture {
  readonly mcpUrl: string;
  readonly asUrl: string;
  readonly seen: Seen[];
  /** Every access and refresh token issued, to search outputs for. */
  readonly issued: string[];
  /** Tool invocations the MCP server ran. */
  readonly calls: string[];
  /** Makes every token issued so far invalid at the MCP server. */
  revokeAll(): void;
  close(): Promise<void>;
}

interface Grant {
  readonly scopes: readonly string[];
  readonly expiresAt: number;
}

export async function startOAuthFixture(options: FixtureOptions = {}): Promise<OAuthFixture> {
  const seen: Seen[] = [];
  const issued: string[] = [];
  const calls: string[] = [];
  const tokens = new Map<string, Grant>();
  const refreshTokens = new Map<string, readonly string[]>();
  const codes = new Map<string, { challenge: string; scopes: readonly string[]; redirect: string }>();
  const expiresIn = options.expiresIn ?? 3600;
  let asUrl = "";
  let mcpUrl = "";

  const issue = (scopes: readonly string[]) => {
    const access = `at-${randomBytes(16).toString("hex")}`;
    tokens.set(access, { scopes, expiresAt: Date.now() + expiresIn * 1000 });
    issued.push(access);
    const body: Record<string, unknown> = {
      access_token: access,
      token_type: "Bearer",
      expires_in: expiresIn,
      ...(scopes.length > 0 ? { scope: scopes.join(" ") } : {}),
    };
    if (options.refresh ?? true) {
      const refresh = `rt-${randomBytes(16).toString("hex")}`;
      refreshTokens.set(refresh, scopes);
      issued.push(refresh);
      body["refresh_token"] = refresh;
    }
    return body;
  };

  const as: Listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const form = req.method === "POST" ? await readForm(req) : {};
    seen.push(record("as", req, url, form));
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: asUrl,
        authorization_endpoint: `${asUrl}/authorize`,
        token_endpoint: `${asUrl}/token`,
        registration_endpoint: `${asUrl}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_basic"],
      });
    }
    if (url.pathname === "/register") {
      return json(res, 201, { client_id: `client-${randomBytes(4).toString("hex")}`, redirect_uris: [] });
    }
    if (url.pathname === "/authorize") {
      const q = Object.fromEntries(url.searchParams);
      const code = `code-${randomBytes(8).toString("hex")}`;
      codes.set(code, {
        challenge: q["code_challenge"] ?? "",
        scopes: (q["scope"] ?? "")
          .split(" ")
          .filter((scope) => scope !== "" && (options.grantable?.includes(scope) ?? true)),
        redirect: q["redirect_uri"] ?? "",
      });
      const back = new URL(q["redirect_uri"] ?? "http://127.0.0.1:1/");
      back.searchParams.set("code", code);
      if (q["state"]) back.searchParams.set("state", q["state"]);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token") {
      if (form["grant_type"] === "authorization_code") {
        const grant = codes.get(form["code"] ?? "");
        codes.delete(form["code"] ?? "");
        const verifier = createHash("sha256")
          .update(form["code_verifier"] ?? "")
          .digest("base64url");
        if (!grant || verifier !== grant.challenge || grant.redirect !== form["redirect_uri"]) {
          return json(res, 400, { error: "invalid_grant" });
        }
        return json(res, 200, issue(grant.scopes));
      }
      if (form["grant_type"] === "refresh_token") {
        const scopes = refreshTokens.get(form["refresh_token"] ?? "");
        if (!scopes) return json(res, 400, { error: "invalid_grant" });
        refreshTokens.delete(form["refresh_token"] ?? "");
        return json(res, 200, issue(scopes));
      }
      return json(res, 400, { error: "unsupported_grant_type" });
    }
    res.writeHead(404).end();
  });
  asUrl = as.url.replace(/\/mcp$/, "");

  const listScopes = options.listScopes ?? [];
  const callScopes = [...listScopes, ...(options.callScopes ?? [])];
  const prmPath = "/.well-known/oauth-protected-resource/mcp";
  const mcp: Listening = await listen(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = req.method === "POST" ? await readBody(req) : "";
    seen.push(record("mcp", req, url, {}));
    if (url.pathname === prmPath) {
      return json(res, 200, {
        resource: options.resource ?? mcpUrl,
        authorization_servers: [options.authorizationServer ?? asUrl],
        ...(listScopes.length > 0 ? { scopes_supported: callScopes } : {}),
      });
    }
    if (url.pathname !== "/mcp") return void res.writeHead(404).end();
    const message = body ? (JSON.parse(body) as { method?: string }) : {};
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const grant = bearer === undefined ? undefined : tokens.get(bearer);
    const challenge = (scopes: readonly string[], extra = "") =>
      `Bearer resource_metadata="${new URL(prmPath, mcpUrl).href}"${scopes.length ? `, scope="${scopes.join(" ")}"` : ""}${extra}`;
    if (!grant || grant.expiresAt < Date.now()) {
      res.writeHead(401, { "www-authenticate": challenge(listScopes), "content-type": "application/json" });
      return void res.end(JSON.stringify({ error: "invalid_token" }));
    }
    const needed = message.method === "tools/call" ? callScopes : listScopes;
    if (!needed.every((s) => grant.scopes.includes(s))) {
      res.writeHead(403, {
        "www-authenticate": challenge(needed, ', error="insufficient_scope"'),
        "content-type": "application/json",
      });
      return void res.end(JSON.stringify({ error: "insufficient_scope" }));
    }
    await serveMcp(req, res, body, bearer as string, calls);
  });
  mcpUrl = mcp.url;

  const fixture: OAuthFixture = {
    mcpUrl,
    asUrl,
    seen,
    issued,
    calls,
    revokeAll: () => tokens.clear(),
    close: async () => {
      await mcp.close();
      await as.close();
    },
  };
  onTestFinished(() => fixture.close());
  return fixture;
}

/**
 * A `$BROWSER` that does what a person's browser does with the authorization URL: requests it,
 * follows the authorization server's redirect to the loopback redirect URI, and exits.
 */
export function followingBrowser(): string {
  const dir = mkdtempSync(join(tmpdir(), "pablo-browser-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const script = join(dir, "browser.mjs");
  writeFileSync(
    script,
    `let url = process.argv[2];
for (let hop = 0; hop < 5 && url; hop++) {
  const res = await fetch(url, { redirect: "manual" });
  await res.arrayBuffer();
  url = res.status >= 300 && res.status < 400 ? new URL(res.headers.get("location"), url).href : undefined;
}
`,
  );
  chmodSync(script, 0o700);
  return `${process.execPath} ${script}`;
}

async function serveMcp(
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  bearer: string,
  calls: string[],
) {
  const server = new Server({ name: "oauth-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ["hello", "leak"].map((name) => ({
      name,
      inputSchema: { type: "object" as const, properties: {} },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    calls.push(request.params.name);
    const text = request.params.name === "leak" ? `you sent ${bearer}` : "hello";
    return { content: [{ type: "text", text }] };
  });
  // Stateless (no session IDs), answering with JSON rather than a stream.
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body ? JSON.parse(body) : undefined);
}

function record(where: Seen["where"], req: IncomingMessage, url: URL, form: Record<string, string>): Seen {
  return {
    where,
    method: req.method ?? "GET",
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    form,
    authorization: req.headers.authorization,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function readForm(req: IncomingMessage): Promise<Record<string, string>> {
  const text = await readBody(req);
  return (req.headers["content-type"] ?? "").includes("json")
    ? (JSON.parse(text || "{}") as Record<string, string>)
    : Object.fromEntries(new URLSearchParams(text));
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
}
