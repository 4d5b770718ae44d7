import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

/**
 * `[options.mcp]` of a deployment file (seed 002, "MCP tools" and "MCP policy"). Keys are
 * snake_case as written in TOML. Every key but `transport` and `command` (stdio) or `url`
 * (HTTP) is optional; {@link MCP_DEFAULTS} lists the defaults.
 */
export const MCP_DEFAULTS = {
  args: [] as readonly string[],
  cwd: "/",
  required: false,
  startupTimeoutMs: 30_000,
  operationTimeoutMs: 60_000,
  shutdownTimeoutMs: 2_000,
  allowLoopbackHttp: false,
  deferred: "auto",
  /** With `deferred = "auto"`, a server that admits more tools than this is deferred. */
  deferredThreshold: 10,
  risk: "medium",
  maxMessageBytes: 8 * 1024 * 1024,
  maxTools: 512,
} as const;

/** Server names become the middle segment of `mcp/{server}/{tool}`. */
export const SERVER_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$";
const CREDENTIAL_NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$";
const ENV_NAME_PATTERN = "^[A-Za-z_][A-Za-z0-9_]{0,127}$";
const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$";

const CredentialName = Type.String({
  pattern: CREDENTIAL_NAME_PATTERN,
  description: "Name of a `[credentials.NAME]` entry; resolved only for this server.",
});

const ToolOverride = Type.Object(
  {
    deferred: Type.Optional(
      Type.Boolean({ description: "Defer this tool (on-demand catalog) or load it eagerly." }),
    ),
  },
  { additionalProperties: false, description: "Per-tool settings, keyed by the server's tool name." },
);

const common = {
  required: Type.Optional(
    Type.Boolean({
      description: "A required server that fails to start fails the task's admission. Default false.",
    }),
  ),
  startup_timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 600_000,
      description: "Time allowed to connect, initialize and list tools. Default 30000.",
    }),
  ),
  operation_timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 86_400_000,
      description: "Time allowed for one tool call before it is reported TOOL_TIMEOUT. Default 60000.",
    }),
  ),
  deferred: Type.Optional(
    Type.Union([Type.Boolean(), Type.Literal("auto")], {
      description: `Defer this server's tools to the on-demand catalog: true, false, or "auto" (deferred when it has more than ${MCP_DEFAULTS.deferredThreshold} tools). Default "auto".`,
    }),
  ),
  tools: Type.Optional(
    StringRecord(Type.String({ minLength: 1, maxLength: 128 }), ToolOverride, {
      description: "Per-tool overrides keyed by the server's tool name.",
    }),
  ),
  risk: Type.Optional(
    Type.Union([Type.Literal("low"), Type.Literal("medium"), Type.Literal("high")], {
      description:
        'Risk of this server\'s tools before annotations; `destructiveHint` can only raise it to "high". Default "medium".',
    }),
  ),
  max_message_bytes: Type.Optional(
    Type.Integer({
      minimum: 1024,
      maximum: 64 * 1024 * 1024,
      description:
        "Largest single message accepted from the server; more ends the connection. Default 8 MiB.",
    }),
  ),
};

export const StdioServerSchema = Type.Object(
  {
    transport: Type.Literal("stdio", { description: "Launch a local process and speak MCP over its stdio." }),
    command: Type.String({
      pattern: "^/",
      description: "Absolute path of the launcher. No PATH search, no shell.",
    }),
    args: Type.Optional(Type.Array(Type.String(), { description: "Literal arguments. Default none." })),
    cwd: Type.Optional(
      Type.String({
        pattern: "^/",
        description:
          'Absolute working directory (resolved by the config package from its binding). Default "/".',
      }),
    ),
    env: Type.Optional(
      StringRecord(Type.String({ pattern: ENV_NAME_PATTERN }), CredentialName, {
        additionalProperties: false,
        description:
          "Environment variable -> credential name (consumer `mcp.environment`). The process gets exactly these variables and nothing else.",
      }),
    ),
    shutdown_timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 60_000,
        description: "Wait after closing stdin, and again after SIGTERM, before SIGKILL. Default 2000.",
      }),
    ),
    ...common,
  },
  { additionalProperties: false },
);

/**
 * `auth = "oauth"` and its client settings (MCP authorization, OAuth 2.1): `pablo mcp login NAME`
 * obtains the tokens, which are stored under the state directory and sent only to this server.
 */
const oauthKeys = {
  auth: Type.Optional(
    Type.Literal("oauth", {
      description:
        'Authorize with OAuth (the MCP authorization spec): run `pablo mcp login NAME` once; calls then carry its token. Needs transport = "http".',
    }),
  ),
  client_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        "A client ID registered with the authorization server in advance. Without it Pablo uses `client_metadata_url` where the server supports it, else dynamic registration.",
    }),
  ),
  client_secret: Type.Optional(
    Type.String({
      pattern: CREDENTIAL_NAME_PATTERN,
      description:
        "Credential name (consumer `mcp.oauth`) holding the secret of `client_id`; sent only to the token endpoint, by the method it supports.",
    }),
  ),
  client_metadata_url: Type.Optional(
    Type.String({
      pattern: "^https://[^/?#]+/[^?#]+",
      maxLength: 2048,
      description:
        "An https URL of this client's metadata document, used as the client ID where the authorization server supports client ID metadata documents.",
    }),
  ),
  scopes: Type.Optional(
    Type.Array(Type.String({ pattern: "^[!#-\\[\\]-~]{1,256}$", description: "One OAuth scope." }), {
      maxItems: 64,
      description:
        "Scopes to request. Default: those the server's WWW-Authenticate challenge names, else its scopes_supported, else none.",
    }),
  ),
  grant: Type.Optional(
    Type.Union([Type.Literal("authorization_code"), Type.Literal("client_credentials")], {
      description:
        'How tokens are obtained: "authorization_code" (a person approves in a browser; default) or "client_credentials" (a machine client with `client_id` and `client_secret` or `client_key`).',
    }),
  ),
  client_key: Type.Optional(
    Type.String({
      pattern: CREDENTIAL_NAME_PATTERN,
      description:
        "Credential name (consumer `mcp.oauth`) holding a PKCS#8 PEM private key: the client authenticates with a signed JWT (private_key_jwt) instead of a secret.",
    }),
  ),
  client_key_algorithm: Type.Optional(
    Type.Union([Type.Literal("ES256"), Type.Literal("RS256")], {
      description: 'Signing algorithm of `client_key`. Default "ES256".',
    }),
  ),
  login_timeout_ms: Type.Optional(
    Type.Integer({
      minimum: 1000,
      maximum: 3_600_000,
      description: "How long `pablo mcp login` waits for the browser to come back. Default 300000 (5 min).",
    }),
  ),
};

export const HttpServerSchema = Type.Object(
  {
    transport: Type.Literal("http", { description: "Speak MCP over Streamable HTTP." }),
    url: Type.String({ minLength: 1, description: "The MCP endpoint. HTTPS unless `allow_loopback_http`." }),
    headers: Type.Optional(
      StringRecord(Type.String({ pattern: HEADER_NAME_PATTERN }), CredentialName, {
        additionalProperties: false,
        description: "Header -> credential name (consumer `mcp.headers`), sent only to this server.",
      }),
    ),
    allow_loopback_http: Type.Optional(
      Type.Boolean({
        description:
          "Allow plain http:// to a loopback host (127.0.0.0/8, [::1], or `localhost`, resolved and checked to be loopback before connecting). Default false.",
      }),
    ),
    ...oauthKeys,
    ...common,
  },
  {
    additionalProperties: false,
    // The client settings mean something only with `auth = "oauth"`; alone they are a mistake.
    dependentRequired: Object.fromEntries(
      Object.keys(oauthKeys)
        .filter((key) => key !== "auth")
        .map((key) => [key, ["auth"]]),
    ),
  },
);

export const McpServerSchema = Type.Union([StdioServerSchema, HttpServerSchema]);

const PolicyRuleId = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
  description: "Stable rule ID, cited by every decision the rule makes.",
});

function seedPolicy(value: string) {
  const rule = Type.Object(
    { id: PolicyRuleId, value: Type.String({ minLength: 1, description: value }) },
    {
      additionalProperties: false,
    },
  );
  return Type.Object(
    {
      default: Type.Optional(
        Type.Union([Type.Literal("allow"), Type.Literal("deny")], {
          description: "Verdict when no rule matches and the allow list is empty. Default allow.",
        }),
      ),
      allow: Type.Optional(
        Type.Array(rule, { description: "A non-empty allow list denies what it does not match." }),
      ),
      deny: Type.Optional(Type.Array(rule, { description: "Deny wins over allow." })),
    },
    { additionalProperties: false },
  );
}

export const McpPolicySchema = Type.Object(
  {
    id: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
        description: "Layer ID for decisions; default `mcp.policy.<n>` (1-based).",
      }),
    ),
    servers: Type.Optional(seedPolicy("Server name, exact or with `*`.")),
    tools: Type.Optional(seedPolicy("Qualified tool name `mcp/{server}/{tool}`, exact or with `*`.")),
    launchers: Type.Optional(seedPolicy("Absolute launcher path, matched exactly.")),
  },
  { additionalProperties: false },
);

export const McpOptionsSchema = Type.Object(
  {
    servers: Type.Optional(
      StringRecord(Type.String({ pattern: SERVER_NAME_PATTERN }), McpServerSchema, {
        additionalProperties: false,
        description: "Configured servers by name. Policy can only narrow this set.",
      }),
    ),
    policies: Type.Optional(
      Type.Array(McpPolicySchema, {
        description: "`[[options.mcp.policies]]`; each entry is one authority layer.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type StdioServerConfig = Static<typeof StdioServerSchema>;
export type HttpServerConfig = Static<typeof HttpServerSchema>;
export type McpServerConfig = Static<typeof McpServerSchema>;
export type McpPolicy = Static<typeof McpPolicySchema>;
export type McpOptions = Static<typeof McpOptionsSchema>;
