import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { StringRecord } from "@pablo/kernel";
import { stateDirectory } from "@pablo/kernel/node";
import Type, { type Static } from "typebox";
import { Compile } from "typebox/schema";
import { McpOAuthCode, McpOAuthError } from "./codes.js";

/**
 * What `pablo mcp login` keeps for one MCP server: one file per exact server URL under
 * `<state>/mcp-oauth/` (directory mode 0700, file mode 0600). A record is only ever returned
 * for the URL it was stored for, so a token never reaches another server.
 */
export const TokenRecordSchema = Type.Object(
  {
    version: Type.Literal(1, { description: "Format version of this file." }),
    serverUrl: Type.String({ description: "The exact MCP server URL the tokens are for (the key)." }),
    server: Type.String({ description: "The server's name in the deployment at login; informational." }),
    tokens: Type.Optional(
      Type.Object(
        {
          access_token: Type.String({ description: "The bearer token sent to serverUrl only." }),
          token_type: Type.String({ description: 'The token type; "Bearer".' }),
          refresh_token: Type.Optional(Type.String({ description: "Used to renew the access token." })),
          scope: Type.Optional(Type.String({ description: "Scopes the authorization server granted." })),
          expires_at: Type.Optional(
            Type.Number({ description: "When the access token expires, ms since the epoch." }),
          ),
          issuer: Type.Optional(Type.String({ description: "The authorization server that issued them." })),
        },
        { description: "The current tokens." },
      ),
    ),
    client: Type.Optional(
      StringRecord(Type.String(), Type.Unknown(), {
        description: "Client information from dynamic registration or a metadata-document client ID.",
      }),
    ),
    discovery: Type.Optional(
      StringRecord(Type.String(), Type.Unknown(), {
        description: "Discovered resource and authorization-server metadata, reused for refresh.",
      }),
    ),
    challengedScope: Type.Optional(
      Type.String({
        description: "Scopes a call was refused for (insufficient_scope); the next login asks for them too.",
      }),
    ),
    obtainedAt: Type.Number({ description: "When the login completed, ms since the epoch." }),
  },
  { description: "One MCP server's OAuth state." },
);

export type TokenRecord = Static<typeof TokenRecordSchema>;
export type StoredTokens = NonNullable<TokenRecord["tokens"]>;

const recordValidator = Compile(TokenRecordSchema);
const MAX_RECORD_BYTES = 1024 * 1024;

/** `<state>/mcp-oauth`, the default token directory. */
export function defaultTokenDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDirectory(env), "mcp-oauth");
}

/** Reads, writes and removes token records in one directory. */
export class TokenStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  /** The file that holds the record for `serverUrl`. */
  fileFor(serverUrl: string): string {
    const key = createHash("sha256").update(serverUrl).digest("hex").slice(0, 32);
    return join(this.dir, `${key}.json`);
  }

  /** The record stored for exactly `serverUrl`, or undefined. Throws {@link McpOAuthError} `STORE` on an unsafe file. */
  load(serverUrl: string): TokenRecord | undefined {
    const file = this.fileFor(serverUrl);
    let fd: number;
    try {
      fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw storeError(`cannot open ${file}: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw storeError(`${file} is not a regular file`);
      if (stats.uid !== currentUid()) throw storeError(`${file} belongs to another user`);
      if ((stats.mode & 0o077) !== 0) throw storeError(`${file} is readable by others (mode must be 0600)`);
      if (stats.size > MAX_RECORD_BYTES) throw storeError(`${file} is larger than ${MAX_RECORD_BYTES} bytes`);
      const parsed = parseRecord(readFileSync(fd, "utf8"));
      // The file name is a hash; the record itself says which URL it belongs to.
      return parsed?.serverUrl === serverUrl ? parsed : undefined;
    } finally {
      closeSync(fd);
    }
  }

  /** Replaces the record for `record.serverUrl` atomically (temporary file, then rename). */
  save(record: TokenRecord): void {
    this.#ensureDir();
    const file = this.fileFor(record.serverUrl);
    const temporary = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const fd = openSync(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      writeSync(fd, `${JSON.stringify(record, null, 2)}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  }

  /** Applies `change` to the stored record (if any) and saves the result. */
  update(serverUrl: string, change: (record: TokenRecord) => TokenRecord): TokenRecord | undefined {
    const current = this.load(serverUrl);
    if (!current) return undefined;
    const next = change(current);
    this.save(next);
    return next;
  }

  /** Removes the record for `serverUrl`; whether there was one. */
  remove(serverUrl: string): boolean {
    const file = this.fileFor(serverUrl);
    try {
      lstatSync(file);
    } catch {
      return false;
    }
    rmSync(file, { force: true });
    return true;
  }

  #ensureDir(): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const stats = lstatSync(this.dir);
    if (!stats.isDirectory() || stats.isSymbolicLink())
      throw storeError(`${this.dir} is not a directory of its own`);
    if (stats.uid !== currentUid()) throw storeError(`${this.dir} belongs to another user`);
    if ((stats.mode & 0o077) !== 0) throw storeError(`${this.dir} is open to others (mode must be 0700)`);
  }
}

/** Whether the access token is missing or expires within `marginMs`. */
export function needsRenewal(tokens: StoredTokens | undefined, now: number, marginMs: number): boolean {
  if (!tokens) return true;
  return tokens.expires_at !== undefined && tokens.expires_at - marginMs <= now;
}

function parseRecord(text: string): TokenRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return recordValidator.Check(value) ? (value as TokenRecord) : undefined;
}

function currentUid(): number {
  return process.getuid?.() ?? 0;
}

function storeError(message: string): McpOAuthError {
  return new McpOAuthError(McpOAuthCode.STORE, message);
}
