import { compileValidator, type Risk } from "@pablo/kernel";
import { type OAuthSettings, resolveOAuthSettings } from "./oauth/settings.js";
import {
  MCP_DEFAULTS,
  type McpServerConfig,
  McpServerSchema,
  SERVER_NAME_PATTERN,
} from "./options-schema.js";

interface ResolvedCommon {
  readonly name: string;
  readonly required: boolean;
  readonly startupTimeoutMs: number;
  readonly operationTimeoutMs: number;
  readonly deferred: boolean | "auto";
  readonly toolDeferred: ReadonlyMap<string, boolean>;
  readonly risk: Risk;
  readonly maxMessageBytes: number;
  /** Tools beyond this many in a listing are left out with a diagnostic. */
  readonly maxTools: number;
}

/** A stdio server with every default applied. */
export interface ResolvedStdioServer extends ResolvedCommon {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Environment variable -> credential name. */
  readonly env: Readonly<Record<string, string>>;
  readonly shutdownTimeoutMs: number;
}

/** An HTTP server with every default applied. */
export interface ResolvedHttpServer extends ResolvedCommon {
  readonly transport: "http";
  readonly url: string;
  /** Header -> credential name. */
  readonly headers: Readonly<Record<string, string>>;
  readonly allowLoopbackHttp: boolean;
  /** `auth = "oauth"`: tokens from `pablo mcp login`; undefined for header-only servers. */
  readonly oauth: OAuthSettings | undefined;
}

export type ResolvedServer = ResolvedStdioServer | ResolvedHttpServer;

const serverValidator = compileValidator(McpServerSchema);
const namePattern = new RegExp(SERVER_NAME_PATTERN);

/** Validates one server entry and applies the defaults; returns a problem description instead. */
export function resolveServer(name: string, raw: unknown): ResolvedServer | { problem: string } {
  if (!namePattern.test(name)) return { problem: `server name ${JSON.stringify(name)} is not allowed` };
  if (!serverValidator.check(raw)) {
    const first = serverValidator.issues(raw, 1)[0];
    return { problem: `${first?.path ?? "/"} ${first?.message ?? "is invalid"}` };
  }
  const config = raw as McpServerConfig;
  const common: ResolvedCommon = {
    name,
    required: config.required ?? MCP_DEFAULTS.required,
    startupTimeoutMs: config.startup_timeout_ms ?? MCP_DEFAULTS.startupTimeoutMs,
    operationTimeoutMs: config.operation_timeout_ms ?? MCP_DEFAULTS.operationTimeoutMs,
    deferred: config.deferred ?? MCP_DEFAULTS.deferred,
    toolDeferred: new Map(
      Object.entries(config.tools ?? {}).flatMap(([tool, o]) =>
        o.deferred === undefined ? [] : [[tool, o.deferred] as const],
      ),
    ),
    risk: config.risk ?? MCP_DEFAULTS.risk,
    maxMessageBytes: config.max_message_bytes ?? MCP_DEFAULTS.maxMessageBytes,
    maxTools: MCP_DEFAULTS.maxTools,
  };
  if (config.transport === "stdio") {
    return {
      ...common,
      transport: "stdio",
      command: config.command,
      args: config.args ?? MCP_DEFAULTS.args,
      cwd: config.cwd ?? MCP_DEFAULTS.cwd,
      env: config.env ?? {},
      shutdownTimeoutMs: config.shutdown_timeout_ms ?? MCP_DEFAULTS.shutdownTimeoutMs,
    };
  }
  return {
    ...common,
    transport: "http",
    url: config.url,
    headers: config.headers ?? {},
    allowLoopbackHttp: config.allow_loopback_http ?? MCP_DEFAULTS.allowLoopbackHttp,
    oauth: resolveOAuthSettings(config),
  };
}
