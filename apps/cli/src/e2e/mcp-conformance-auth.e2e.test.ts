import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { type ConformanceClient, runClientScenario, SERVER } from "./mcp-conformance.js";

/**
 * Every `auth/*` client scenario of the MCP conformance suite (0.1.13) with the built `pablo` as
 * the client: the deployment names the suite's server with `auth = "oauth"`, `pablo mcp login`
 * runs with `$BROWSER` set to a script that follows the authorization redirect, then `pablo call`
 * calls the suite's tool with the stored token. The suite judges what its servers saw.
 */

const TOOL = `mcp/${SERVER}/test-tool`;
const TOKEN = /(?:test|cc)-token-\d/;

/** A `$BROWSER` that requests the authorization URL and follows redirects to the loopback URI. */
function browser(): string {
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

/** A credential for the server's OAuth client, read from `variable`. */
function credential(name: string, variable: string): string[] {
  return [
    `[credentials.${name}]`,
    'consumer = "mcp.oauth"',
    `destination = "${SERVER}"`,
    `sources = [{ kind = "environment", name = "${variable}" }]`,
  ];
}

interface Plan {
  readonly keys?: readonly string[];
  readonly lines?: readonly string[];
  readonly env?: (context: Record<string, unknown>) => Record<string, string>;
  /** Run after the login instead of one successful call. */
  readonly after?: (client: ConformanceClient, env: Record<string, string>) => Promise<void>;
  /** The login must fail (the scenario expects the client to refuse or give up). */
  readonly loginFails?: boolean;
}

const callOnce = async (client: ConformanceClient, env: Record<string, string>) => {
  await client.pablo(["call", TOOL, "--args", "{}", "--json"], { env });
};

const PLANS: Readonly<Record<string, Plan>> = {
  "auth/metadata-default": {
    // What a person checks after logging in: the server's state, then a call that carries the token.
    after: async (client, env) => {
      const explain = await client.pablo(["tools", "--explain", "--json"], { env });
      const states = JSON.parse(explain.stdout).mcpAuthorization;
      expect(states).toMatchObject([{ server: SERVER, state: "authorized" }]);
      const policy = await client.pablo(["policy", "check", "--json"], { env, expectCode: "any" });
      expect(JSON.parse(policy.stdout).mcpAuthorization).toMatchObject([
        { server: SERVER, state: "authorized" },
      ]);
      await callOnce(client, env);
    },
  },
  "auth/metadata-var1": {},
  "auth/metadata-var2": {},
  "auth/metadata-var3": {},
  "auth/basic-cimd": {
    keys: ['client_metadata_url = "https://conformance-test.local/client-metadata.json"'],
  },
  "auth/scope-from-www-authenticate": {},
  "auth/scope-from-scopes-supported": {},
  "auth/scope-omitted-when-undefined": {},
  "auth/scope-step-up": {
    // The call is refused for insufficient scope and not re-sent; the next login asks for it.
    after: async (client, env) => {
      const refused = await client.pablo(["call", TOOL, "--args", "{}", "--json"], { env, expectCode: 1 });
      expect(refused.stdout).toContain("pablo mcp login conformance");
      expect(refused.stdout).toContain("MCP_OAUTH_UNAUTHORIZED");
      await client.pablo(["mcp", "login", SERVER], { env: { ...env, BROWSER: browser() } });
      await callOnce(client, env);
    },
  },
  "auth/scope-retry-limit": { loginFails: true, after: async () => undefined },
  "auth/token-endpoint-auth-basic": {},
  "auth/token-endpoint-auth-post": {},
  "auth/token-endpoint-auth-none": {},
  "auth/resource-mismatch": { loginFails: true, after: async () => undefined },
  "auth/pre-registration": {
    keys: ['client_id = "pre-registered-client"', 'client_secret = "conformance-secret"'],
    lines: credential("conformance-secret", "CONFORMANCE_SECRET"),
    env: (context) => ({ CONFORMANCE_SECRET: String(context["client_secret"]) }),
  },
  "auth/2025-03-26-oauth-metadata-backcompat": {},
  "auth/2025-03-26-oauth-endpoint-fallback": {},
  "auth/client-credentials-jwt": {
    keys: [
      'grant = "client_credentials"',
      'client_id = "conformance-test-client"',
      'client_key = "conformance-key"',
      'client_key_algorithm = "ES256"',
    ],
    lines: credential("conformance-key", "CONFORMANCE_KEY"),
    env: (context) => ({ CONFORMANCE_KEY: String(context["private_key_pem"]) }),
  },
  "auth/client-credentials-basic": {
    keys: [
      'grant = "client_credentials"',
      'client_id = "conformance-test-client"',
      'client_secret = "conformance-secret"',
    ],
    lines: credential("conformance-secret", "CONFORMANCE_SECRET"),
    env: (context) => ({ CONFORMANCE_SECRET: String(context["client_secret"]) }),
  },
};

describe("MCP conformance suite, auth/* client scenarios, pablo as the client", () => {
  for (const [scenario, plan] of Object.entries(PLANS)) {
    it(scenario, { timeout: 120_000 }, async () => {
      let audit = "";
      const run = await runClientScenario(scenario, async (client) => {
        client.deploy({ keys: ['auth = "oauth"', ...(plan.keys ?? [])], lines: plan.lines ?? [] });
        const env = plan.env?.(client.target.context ?? {}) ?? {};
        await client.pablo(["mcp", "login", SERVER], {
          env: { ...env, BROWSER: browser() },
          expectCode: plan.loginFails ? 1 : 0,
        });
        await (plan.after ?? callOnce)(client, env);
        audit = JSON.stringify(client.home.audit());
      });
      // The suite's tokens (test-token-<ms>, cc-token-<ms>) never reach any output or the audit.
      for (const step of run.client.steps) expect(`${step.stdout}${step.stderr}`).not.toMatch(TOKEN);
      expect(audit).not.toMatch(TOKEN);
      expect(run.client.error).toBeUndefined();
      expect(run.problems).toEqual([]);
      expect(run.passed).toBe(true);
    });
  }
});
