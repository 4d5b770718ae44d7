import { fail, type JsonValue } from "@pablo/kernel";
import { type Connection, createConnection, type FieldPacket } from "mysql2/promise";
import Type, { type Static } from "typebox";
import { ActionsErrorCode } from "../errors.js";
import type { BuiltinHandler, BuiltinOutcome } from "./builtin.js";
import { checkConfig } from "./config.js";
import { readCredentialsFile } from "./credentials-file.js";
import { sqlProblem } from "./sql-check.js";

/** The handler's ceilings; `builtin_config` may only lower them. */
export const MYSQL_QUERY_LIMITS = {
  maxRows: 10_000,
  maxResultBytes: 8 * 1024 * 1024,
  statementTimeoutMs: 5 * 60_000,
  maxSqlLength: 16 * 1024,
} as const;

const ConfigSchema = Type.Object(
  {
    credentials_file: Type.String({
      minLength: 2,
      maxLength: 4096,
      description:
        "Absolute path of the host's credentials file (`user`, `password`, `host`, `port`, `socket`, `database`); mode 0600, owned by the host user.",
    }),
    host: Type.Optional(
      Type.String({
        maxLength: 255,
        description: "Server host, unless the credentials file names one (default 127.0.0.1).",
      }),
    ),
    port: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 65535,
        description: "Server port, unless the credentials file names one (default 3306).",
      }),
    ),
    database: Type.Optional(
      Type.String({ maxLength: 64, description: "Default database, unless the credentials file names one." }),
    ),
    max_rows: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MYSQL_QUERY_LIMITS.maxRows,
        description: "Most rows returned (default 1000).",
      }),
    ),
    max_result_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MYSQL_QUERY_LIMITS.maxResultBytes,
        description: "Most bytes of serialized rows returned (default 1 MiB).",
      }),
    ),
    statement_timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 100,
        maximum: MYSQL_QUERY_LIMITS.statementTimeoutMs,
        description: "Statement time limit, also set on the server (default 10 s).",
      }),
    ),
  },
  { additionalProperties: false },
);
type MysqlConfig = Static<typeof ConfigSchema>;

const ParamsSchema = Type.Object(
  {
    sql: Type.String({
      minLength: 1,
      maxLength: MYSQL_QUERY_LIMITS.maxSqlLength,
      description: "Exactly one SELECT, SHOW, DESC or EXPLAIN statement.",
    }),
  },
  { additionalProperties: false, description: "The query." },
);

/**
 * `mysql_query`: one read-only statement, checked by a SQL tokenizer, run in a read-only
 * transaction with the server's own statement time limit and row limit set on the session,
 * the client's timeout too, and rows and serialized bytes bounded. Credentials come from a host
 * file, never from the call; multiple statements are off in the client as well.
 */
export const mysqlQuery: BuiltinHandler<MysqlConfig> = {
  name: "mysql_query",
  summary: "Run one read-only SQL statement",
  effects: ["net"],
  category: "external",
  paramsSchema: ParamsSchema,
  resolveConfig(raw) {
    const checked = checkConfig(ConfigSchema, raw);
    if (checked.ok && !checked.config.credentials_file.startsWith("/")) {
      return { ok: false, problem: "credentials_file must be an absolute path" };
    }
    return checked;
  },
  accesses(_config, params) {
    const problem = sqlProblem(String(params["sql"]));
    return problem ? fail(ActionsErrorCode.QUERY_REFUSED, problem) : [];
  },
  async run(config, params, context) {
    const sql = String(params["sql"]);
    const problem = sqlProblem(sql);
    if (problem) return fail(ActionsErrorCode.QUERY_REFUSED, problem);
    const timeoutMs = Math.max(
      100,
      Math.min(config.statement_timeout_ms ?? 10_000, context.deadline - performance.now()),
    );
    const connection = await connect(config, timeoutMs);
    if (!connection.ok) return connection.failure;
    const { db } = connection;
    const abort = () => db.destroy();
    context.signal.addEventListener("abort", abort, { once: true });
    try {
      return await query(db, sql, config, timeoutMs);
    } catch (error) {
      return fail(ActionsErrorCode.QUERY_FAILED, `the server refused the query: ${messageOf(error)}`, {
        ...(typeof (error as { code?: unknown }).code === "string"
          ? { serverCode: (error as { code: string }).code }
          : {}),
      });
    } finally {
      context.signal.removeEventListener("abort", abort);
      db.destroy();
    }
  },
  async check(config) {
    const connection = await connect(config, 3_000);
    if (!connection.ok) return connection.failure.error.message;
    connection.db.destroy();
    return undefined;
  },
};

async function connect(
  config: MysqlConfig,
  timeoutMs: number,
): Promise<{ ok: true; db: Connection } | { ok: false; failure: ReturnType<typeof fail> }> {
  const credentials = readCredentialsFile(config.credentials_file);
  if (!credentials.ok)
    return { ok: false, failure: fail(ActionsErrorCode.CREDENTIALS_UNSAFE, credentials.problem) };
  const values = credentials.values;
  try {
    const db = await createConnection({
      ...(values["socket"]
        ? { socketPath: values["socket"] }
        : { host: values["host"] ?? config.host ?? "127.0.0.1" }),
      port: Number(values["port"] ?? config.port ?? 3306),
      user: values["user"] ?? values["username"] ?? "",
      password: values["password"] ?? "",
      ...((values["database"] ?? config.database) ? { database: values["database"] ?? config.database } : {}),
      multipleStatements: false,
      connectTimeout: Math.min(timeoutMs, 10_000),
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
    return { ok: true, db };
  } catch (error) {
    return {
      ok: false,
      failure: fail(
        ActionsErrorCode.BUILTIN_UNAVAILABLE,
        `cannot connect to the database: ${messageOf(error)}`,
      ),
    };
  }
}

async function query(
  db: Connection,
  sql: string,
  config: MysqlConfig,
  timeoutMs: number,
): Promise<BuiltinOutcome> {
  const maxRows = config.max_rows ?? 1000;
  const maxBytes = config.max_result_bytes ?? 1024 * 1024;
  // The server stops the statement itself (MariaDB's max_statement_time, MySQL's
  // max_execution_time), so a slow query does not keep running after the client gives up.
  await db
    .query(`SET SESSION max_statement_time = ${(timeoutMs / 1000).toFixed(3)}`)
    .catch(() => db.query(`SET SESSION max_execution_time = ${Math.ceil(timeoutMs)}`));
  await db.query(`SET SESSION sql_select_limit = ${maxRows + 1}`);
  await db.query("START TRANSACTION READ ONLY");
  try {
    const [rows, fields] = (await db.query({ sql, timeout: timeoutMs, rowsAsArray: true })) as unknown as [
      unknown[][],
      FieldPacket[] | undefined,
    ];
    return bounded(Array.isArray(rows) ? rows : [], fields ?? [], maxRows, maxBytes);
  } finally {
    await db.query("ROLLBACK").catch(() => undefined);
  }
}

function bounded(
  rows: unknown[][],
  fields: FieldPacket[],
  maxRows: number,
  maxBytes: number,
): BuiltinOutcome {
  const out: JsonValue[][] = [];
  let bytes = 0;
  let cut = rows.length > maxRows;
  for (const row of rows.slice(0, maxRows)) {
    const json = row.map(cell);
    const size = Buffer.byteLength(JSON.stringify(json));
    if (bytes + size > maxBytes) {
      cut = true;
      break;
    }
    bytes += size;
    out.push(json);
  }
  return {
    ok: true,
    data: {
      columns: fields.map((f) => f.name),
      rows: out,
      rowCount: out.length,
      rowsTruncated: cut,
      resultBytes: bytes,
    },
    scanLimited: cut,
  };
}

function cell(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" || typeof value === "string" || typeof value === "boolean") return value;
  return JSON.stringify(value) ?? null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
