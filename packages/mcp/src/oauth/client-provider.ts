import { randomBytes } from "node:crypto";
import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { checkResourceAllowed } from "@modelcontextprotocol/sdk/shared/auth-utils.js";
import { privateKeyJwtAuthentication } from "./client-assertion.js";
import { McpOAuthCode, McpOAuthError } from "./codes.js";
import type { OAuthSettings } from "./settings.js";
import type { TokenRecord } from "./token-store.js";

/** The client secrets of a pre-registered client, resolved from credentials for this server. */
export interface ClientSecrets {
  readonly clientSecret: string | undefined;
  readonly clientKeyPem: string | undefined;
}

export interface ProviderOptions {
  readonly server: string;
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly secrets: ClientSecrets;
  /** The record the provider reads and updates; `persist` is called after every change. */
  readonly record: TokenRecord;
  readonly persist: (record: TokenRecord) => void;
  /**
   * Interactive logins: the loopback redirect URI and what to do with the authorization URL.
   * Without it (during a task) the provider can only refresh: a flow that needs a person fails.
   */
  readonly interactive?: {
    readonly redirectUrl: string;
    readonly open: (authorizationUrl: URL) => void | Promise<void>;
  };
  /** The scope the next token request asks for (client_credentials, which has no authorization URL). */
  readonly scope?: () => string | undefined;
}

/**
 * Pablo's {@link OAuthClientProvider} for one MCP server, over one token record. Client identity
 * in the spec's order: a pre-registered `client_id` (with its secret or key), else a client ID
 * metadata document URL where the server supports it, else dynamic registration (the SDK decides
 * the last two from the server's metadata). The `state` it hands out is kept for the caller to check.
 */
export class PabloOAuthProvider implements OAuthClientProvider {
  readonly clientMetadataUrl?: string;
  addClientAuthentication?: AddClientAuthentication;
  /** The `state` of the last authorization URL, which the redirect must carry back. */
  expectedState: string | undefined;
  #record: TokenRecord;
  #codeVerifier: string | undefined;
  readonly #options: ProviderOptions;

  constructor(options: ProviderOptions) {
    this.#options = options;
    this.#record = options.record;
    if (options.settings.clientMetadataUrl !== undefined && options.settings.clientId === undefined) {
      this.clientMetadataUrl = options.settings.clientMetadataUrl;
    }
    const { clientId } = options.settings;
    if (clientId !== undefined && options.secrets.clientKeyPem !== undefined) {
      this.addClientAuthentication = privateKeyJwtAuthentication(
        clientId,
        options.secrets.clientKeyPem,
        options.settings.clientKeyAlgorithm,
      );
    }
  }

  get record(): TokenRecord {
    return this.#record;
  }

  get redirectUrl(): string | undefined {
    return this.#options.settings.grant === "client_credentials"
      ? undefined
      : this.#options.interactive?.redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.#options.settings.scopes.join(" ");
    const machine = this.#options.settings.grant === "client_credentials";
    return {
      client_name: "Pablo",
      redirect_uris: machine || !this.#options.interactive ? [] : [this.#options.interactive.redirectUrl],
      grant_types: machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: machine ? [] : ["code"],
      // A command-line client cannot keep a secret it was not configured with.
      token_endpoint_auth_method: "none",
      ...(scope ? { scope } : {}),
    };
  }

  state(): string {
    this.expectedState = randomBytes(32).toString("base64url");
    return this.expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const { clientId } = this.#options.settings;
    if (clientId !== undefined) {
      const secret = this.#options.secrets.clientSecret;
      return { client_id: clientId, ...(secret === undefined ? {} : { client_secret: secret }) };
    }
    return this.#record.client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(information: OAuthClientInformationMixed): void {
    // A pre-registered identity comes from the deployment; its secret is never written down.
    if (this.#options.settings.clientId !== undefined) return;
    this.#update({ ...this.#record, client: { ...information } });
  }

  tokens(): OAuthTokens | undefined {
    const stored = this.#record.tokens;
    if (!stored) return undefined;
    return {
      access_token: stored.access_token,
      token_type: stored.token_type,
      ...(stored.refresh_token === undefined ? {} : { refresh_token: stored.refresh_token }),
      ...(stored.scope === undefined ? {} : { scope: stored.scope }),
      ...(stored.issuer === undefined ? {} : { issuer: stored.issuer }),
    };
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#update({
      ...this.#record,
      tokens: {
        access_token: tokens.access_token,
        token_type: tokens.token_type,
        ...(tokens.refresh_token === undefined ? {} : { refresh_token: tokens.refresh_token }),
        ...(tokens.scope === undefined ? {} : { scope: tokens.scope }),
        ...(tokens.expires_in === undefined ? {} : { expires_at: Date.now() + tokens.expires_in * 1000 }),
        ...(tokens.issuer === undefined ? {} : { issuer: tokens.issuer }),
      },
    });
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (!this.#options.interactive) {
      throw new McpOAuthError(
        McpOAuthCode.FAILED,
        `MCP server ${this.#options.server} needs a new authorization: run \`pablo mcp login ${this.#options.server}\``,
      );
    }
    await this.#options.interactive.open(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.#codeVerifier === undefined)
      throw new McpOAuthError(McpOAuthCode.FAILED, "no PKCE verifier was made");
    return this.#codeVerifier;
  }

  prepareTokenRequest(): URLSearchParams | undefined {
    if (this.#options.settings.grant !== "client_credentials") return undefined;
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    const scope = this.#options.scope?.();
    if (scope) params.set("scope", scope);
    return params;
  }

  /**
   * The resource indicator is always sent: the protected-resource metadata's `resource` when it
   * covers this server URL (same origin, a prefix of its path), the server URL when there is no
   * metadata. Any other resource is refused before anything is authorized.
   */
  async validateResourceURL(serverUrl: string | URL, resource?: string): Promise<URL | undefined> {
    const own = new URL(String(serverUrl));
    if (resource === undefined) return own;
    if (!checkResourceAllowed({ requestedResource: own, configuredResource: resource })) {
      throw new McpOAuthError(
        McpOAuthCode.RESOURCE_MISMATCH,
        `the protected-resource metadata of ${this.#options.server} names resource ${resource}, not ${own.href}; nothing was authorized`,
      );
    }
    return new URL(resource);
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const { client, tokens, discovery, ...rest } = this.#record;
    if (scope === "verifier") {
      this.#codeVerifier = undefined;
      return;
    }
    this.#update({
      ...rest,
      ...(scope === "all" || scope === "client" || client === undefined ? {} : { client }),
      ...(scope === "all" || scope === "tokens" || tokens === undefined ? {} : { tokens }),
      ...(scope === "all" || scope === "discovery" || discovery === undefined ? {} : { discovery }),
    });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#update({ ...this.#record, discovery: { ...state } });
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#record.discovery as OAuthDiscoveryState | undefined;
  }

  #update(record: TokenRecord): void {
    this.#record = record;
    this.#options.persist(record);
  }
}
