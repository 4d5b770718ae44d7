import { fail, type JsonValue } from "@pablo/kernel";
import { createClient } from "redis";
import Type, { type Static } from "typebox";
import { ActionsErrorCode } from "../errors.js";
import type { BuiltinHandler, BuiltinOutcome } from "./builtin.js";
import { checkConfig } from "./config.js";
import { readCredentialsFile } from "./credentials-file.js";

/** The read-only commands of seed 004, and no others. */
export const REDIS_COMMANDS = [
  "GET",
  "MGET",
  "HGET",
  "HLEN",
  "TTL",
  "TYPE",
  "EXISTS",
  "STRLEN",
  "LLEN",
  "SCARD",
  "ZCARD",
  "SCAN",
  "INFO",
] as const;
type RedisCommandName = (typeof REDIS_COMMANDS)[number];

/** One command name; `Unsafe` keeps the literal union as its static type (a mapped union erases it). */
const commandName = (description: string) =>
  Type.Unsafe<RedisCommandName>(
    Type.Union(
      REDIS_COMMANDS.map((c) => Type.Literal(c)),
      { description },
    ),
  );

/** The handler's ceilings; `builtin_config` may only lower them. */
export const REDIS_COMMAND_LIMITS = {
  maxArgs: 64,
  maxArgBytes: 4096,
  maxScanCount: 1000,
  maxResultBytes: 8 * 1024 * 1024,
} as const;

const ConfigSchema = Type.Object(
  {
    host: Type.Optional(Type.String({ maxLength: 255, description: "Server host (default 127.0.0.1)." })),
    port: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: "Server port (default 6379)." }),
    ),
    database: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 255, description: "Database number (default 0)." }),
    ),
    credentials_file: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 4096,
        description:
          "Absolute path of a credentials file (`username`, `password`); mode 0600, owned by the host user.",
      }),
    ),
    commands: Type.Optional(
      Type.Array(commandName("An allowed command."), {
        minItems: 1,
        maxItems: REDIS_COMMANDS.length,
        description: "The commands this action allows: a subset of the read-only list (default all of it).",
      }),
    ),
    max_args: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: REDIS_COMMAND_LIMITS.maxArgs,
        description: "Most arguments (default 16).",
      }),
    ),
    max_arg_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: REDIS_COMMAND_LIMITS.maxArgBytes,
        description: "Longest argument in bytes (default 1024).",
      }),
    ),
    max_scan_count: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: REDIS_COMMAND_LIMITS.maxScanCount,
        description: "Largest SCAN COUNT; also the COUNT added when a call gives none (default 100).",
      }),
    ),
    max_result_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: REDIS_COMMAND_LIMITS.maxResultBytes,
        description: "Most bytes of the serialized reply (default 1 MiB).",
      }),
    ),
  },
  { additionalProperties: false },
);
type RedisConfig = Static<typeof ConfigSchema>;

const ParamsSchema = Type.Object(
  {
    command: commandName("A read-only command."),
    args: Type.Optional(
      Type.Array(Type.String({ maxLength: REDIS_COMMAND_LIMITS.maxArgBytes }), {
        maxItems: REDIS_COMMAND_LIMITS.maxArgs,
        description: "The command's arguments.",
      }),
    ),
  },
  { additionalProperties: false, description: "The command." },
);

/** Argument counts per command: [least, most] (most: `Infinity` is bounded by max_args). */
const ARITY: Record<RedisCommandName, readonly [number, number]> = {
  GET: [1, 1],
  MGET: [1, Infinity],
  HGET: [2, 2],
  HLEN: [1, 1],
  TTL: [1, 1],
  TYPE: [1, 1],
  EXISTS: [1, Infinity],
  STRLEN: [1, 1],
  LLEN: [1, 1],
  SCARD: [1, 1],
  ZCARD: [1, 1],
  SCAN: [1, 7],
  INFO: [0, 4],
};

/**
 * `redis_command`: exactly the seed's read-only allow-list, narrowed further by the catalog, with
 * arguments counted and bounded, SCAN's options parsed (COUNT at most `max_scan_count`, added
 * when absent), and the reply bounded. The command and its arguments are sent as one array, so no
 * argument can become a second command.
 */
export const redisCommand: BuiltinHandler<RedisConfig> = {
  name: "redis_command",
  summary: "Run one read-only Redis command",
  effects: ["net"],
  category: "external",
  paramsSchema: ParamsSchema,
  resolveConfig(raw) {
    const checked = checkConfig(ConfigSchema, raw);
    if (checked.ok && checked.config.credentials_file && !checked.config.credentials_file.startsWith("/")) {
      return { ok: false, problem: "credentials_file must be an absolute path" };
    }
    return checked;
  },
  accesses(config, params) {
    const built = commandOf(config, params);
    return "problem" in built ? fail(ActionsErrorCode.QUERY_REFUSED, built.problem) : [];
  },
  async run(config, params, context) {
    const built = commandOf(config, params);
    if ("problem" in built) return fail(ActionsErrorCode.QUERY_REFUSED, built.problem);
    const client = await connect(config, Math.max(100, context.deadline - performance.now()));
    if ("failure" in client) return client.failure;
    const abort = () => void client.redis.destroy();
    context.signal.addEventListener("abort", abort, { once: true });
    try {
      const reply = (await client.redis.sendCommand(built.argv)) as unknown;
      return bounded(toJson(reply), config.max_result_bytes ?? 1024 * 1024);
    } catch (error) {
      return fail(ActionsErrorCode.QUERY_FAILED, `the server refused the command: ${messageOf(error)}`);
    } finally {
      context.signal.removeEventListener("abort", abort);
      client.redis.destroy();
    }
  },
  async check(config) {
    const client = await connect(config, 3_000);
    if ("failure" in client) return client.failure.error.message;
    client.redis.destroy();
    return undefined;
  },
};

/** The command array to send, or why the call is refused. */
export function commandOf(
  config: RedisConfig,
  params: Readonly<Record<string, unknown>>,
): { argv: string[] } | { problem: string } {
  const command = String(params["command"]).toUpperCase() as RedisCommandName;
  const args = (params["args"] as string[] | undefined) ?? [];
  const allowed: readonly string[] = config.commands ?? REDIS_COMMANDS;
  if (!allowed.includes(command) || !(command in ARITY))
    return { problem: `${command} is not an allowed command` };
  const maxArgs = config.max_args ?? 16;
  const maxArgBytes = config.max_arg_bytes ?? 1024;
  const [least, most] = ARITY[command];
  if (args.length < least || args.length > Math.min(most, maxArgs)) {
    return { problem: `${command} takes ${least}–${Math.min(most, maxArgs)} arguments` };
  }
  for (const arg of args) {
    if (Buffer.byteLength(arg) > maxArgBytes)
      return { problem: `an argument is longer than ${maxArgBytes} bytes` };
  }
  if (command !== "SCAN") return { argv: [command, ...args] };
  return scanCommand(args, config.max_scan_count ?? 100);
}

function scanCommand(args: readonly string[], maxCount: number): { argv: string[] } | { problem: string } {
  const [cursor, ...options] = args;
  if (!/^[0-9]{1,20}$/.test(cursor ?? "")) return { problem: "SCAN needs a numeric cursor" };
  const out = ["SCAN", cursor ?? "0"];
  let count: number | undefined;
  for (let i = 0; i < options.length; i += 2) {
    const name = (options[i] ?? "").toUpperCase();
    const value = options[i + 1];
    if (value === undefined || !["MATCH", "COUNT", "TYPE"].includes(name))
      return { problem: "SCAN takes MATCH, COUNT and TYPE options, each with a value" };
    if (name === "COUNT") {
      count = Number(value);
      if (!/^[0-9]{1,9}$/.test(value) || count < 1 || count > maxCount)
        return { problem: `SCAN COUNT must be between 1 and ${maxCount}` };
    }
    out.push(name, value);
  }
  if (count === undefined) out.push("COUNT", String(Math.min(10, maxCount)));
  return { argv: out };
}

async function connect(config: RedisConfig, timeoutMs: number) {
  let username: string | undefined;
  let password: string | undefined;
  if (config.credentials_file) {
    const read = readCredentialsFile(config.credentials_file);
    if (!read.ok) return { failure: fail(ActionsErrorCode.CREDENTIALS_UNSAFE, read.problem) };
    username = read.values["username"] ?? read.values["user"];
    password = read.values["password"];
  }
  const redis = createClient({
    socket: {
      host: config.host ?? "127.0.0.1",
      port: config.port ?? 6379,
      connectTimeout: Math.min(timeoutMs, 10_000),
      reconnectStrategy: false,
    },
    ...(username !== undefined ? { username } : {}),
    ...(password !== undefined ? { password } : {}),
    ...(config.database !== undefined ? { database: config.database } : {}),
  });
  // Errors surface through the awaited calls; an unhandled 'error' event would crash the host.
  redis.on("error", () => undefined);
  try {
    await redis.connect();
    return { redis };
  } catch (error) {
    redis.destroy();
    return {
      failure: fail(ActionsErrorCode.BUILTIN_UNAVAILABLE, `cannot connect to redis: ${messageOf(error)}`),
    };
  }
}

function toJson(reply: unknown): JsonValue {
  if (reply === null || reply === undefined) return null;
  if (Buffer.isBuffer(reply)) return reply.toString("utf8");
  if (Array.isArray(reply)) return reply.map(toJson);
  if (typeof reply === "number" || typeof reply === "string" || typeof reply === "boolean") return reply;
  if (typeof reply === "bigint") return reply.toString();
  if (reply instanceof Map) return Object.fromEntries([...reply].map(([k, v]) => [String(k), toJson(v)]));
  if (typeof reply === "object") {
    return Object.fromEntries(
      Object.entries(reply as Record<string, unknown>).map(([k, v]) => [k, toJson(v)]),
    );
  }
  return String(reply);
}

function bounded(reply: JsonValue, maxBytes: number): BuiltinOutcome {
  const size = Buffer.byteLength(JSON.stringify(reply));
  if (size <= maxBytes) {
    return {
      ok: true,
      data: { reply, replyBytes: size },
      ...(typeof reply === "string" ? { text: reply } : {}),
    };
  }
  const text = typeof reply === "string" ? reply : JSON.stringify(reply);
  return {
    ok: true,
    data: { replyBytes: size, replyTruncated: true },
    text: Buffer.from(text).subarray(0, maxBytes).toString("utf8"),
    scanLimited: true,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
