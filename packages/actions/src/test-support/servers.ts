import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

/*
 * Real MariaDB and Redis servers for the builtin tests (see ../shared/PEERS.md): run as the
 * unprivileged user `nobody` on 127.0.0.1 and a free port, from a private temporary directory,
 * and stopped by process ID afterwards. When the binaries are missing, `serverSkip` says why and
 * the tests skip; `.ci/run` installs them, so CI skips nothing.
 */

const MARIADB = [
  "/usr/sbin/mariadbd",
  "/usr/bin/mariadb-install-db",
  "/usr/bin/mariadb",
  "/usr/bin/mariadb-admin",
];
const REDIS = ["/usr/bin/redis-server"];
const SETPRIV = "/usr/bin/setpriv";
const AS_NOBODY = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"];

/** Why the server tests must skip here, or undefined when they can run. */
export function serverSkip(kind: "mariadb" | "redis"): string | undefined {
  const missing = [...(kind === "mariadb" ? MARIADB : REDIS), SETPRIV].filter((path) => !existsSync(path));
  if (missing.length > 0)
    return `skipped: ${missing.join(", ")} not installed (apt-get install -y mariadb-server redis-server)`;
  if (process.getuid?.() !== 0) return "skipped: starting the servers as user nobody needs root";
  return undefined;
}

export interface RunningServer {
  readonly port: number;
  readonly dir: string;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

function privateDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chownSync(dir, 65534, 65534);
  chmodSync(dir, 0o700);
  return dir;
}

async function stopChild(child: ChildProcess, dir: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    process.kill(child.pid, "SIGTERM");
    const done = await Promise.race([exited.then(() => true), delay(10_000, false)]);
    if (!done) process.kill(child.pid, "SIGKILL");
  }
  rmSync(dir, { recursive: true, force: true });
}

/** MariaDB with database `shop`, a table of rows and a read-only user `reader`@127.0.0.1. */
export async function startMariadb(): Promise<RunningServer & { readonly password: string }> {
  const dir = privateDir("pablo-mariadb-");
  const data = join(dir, "data");
  const socket = join(dir, "s");
  execFileSync(MARIADB[1] ?? "", ["--no-defaults", `--datadir=${data}`, "--user=nobody", "--skip-test-db"], {
    stdio: "ignore",
  });
  const port = await freePort();
  const child = spawn(
    SETPRIV,
    [
      ...AS_NOBODY,
      MARIADB[0] ?? "",
      "--no-defaults",
      `--datadir=${data}`,
      `--socket=${socket}`,
      `--port=${port}`,
      "--bind-address=127.0.0.1",
      "--skip-name-resolve",
      `--pid-file=${join(dir, "pid")}`,
      `--log-error=${join(dir, "error.log")}`,
    ],
    { stdio: "ignore" },
  );
  const client = (sql: string) =>
    execFileSync(
      SETPRIV,
      [...AS_NOBODY, MARIADB[2] ?? "", "--no-defaults", `--socket=${socket}`, "-e", sql],
      { stdio: "pipe" },
    );
  const password = "reader-pw-7f3a";
  try {
    await until(
      () => client("SELECT 1"),
      () => child.exitCode !== null,
      "mariadbd",
    );
    seedMariadb(client, password);
    // A stored function that writes: the SQL check cannot see inside it, the read-only
    // transaction must stop it.
    execFileSync(
      SETPRIV,
      [
        ...AS_NOBODY,
        MARIADB[2] ?? "",
        "--no-defaults",
        `--socket=${socket}`,
        "--delimiter=//",
        "-e",
        "CREATE FUNCTION shop.bump() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO shop.items VALUES (9999,'x','x'); RETURN 1; END//",
      ],
      { stdio: "pipe" },
    );
  } catch (error) {
    await stopChild(child, dir);
    throw error;
  }
  return { port, dir, password, stop: () => stopChild(child, dir) };
}

/** Retries `probe` until it stops throwing, the server exits, or 20 s pass. */
async function until(probe: () => unknown, exited: () => boolean, name: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      probe();
      return;
    } catch (error) {
      if (i > 200 || exited()) throw new Error(`${name} did not start: ${String(error)}`);
      await delay(100);
    }
  }
}

function seedMariadb(client: (sql: string) => unknown, password: string): void {
  client(
    [
      "CREATE DATABASE shop",
      "CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(64), note VARCHAR(128))",
      "INSERT INTO shop.items VALUES (1,'apple','fine'),(2,'pear','token=abcd1234efgh'),(3,'plum','x')",
      "INSERT INTO shop.items SELECT seq + 10, CONCAT('bulk', seq), 'n' FROM shop.seq_1_to_2000",
      `CREATE USER 'reader'@'127.0.0.1' IDENTIFIED BY '${password}'`,
      "GRANT SELECT ON shop.* TO 'reader'@'127.0.0.1'",
      `CREATE USER 'writer'@'127.0.0.1' IDENTIFIED BY '${password}'`,
      "GRANT ALL ON shop.* TO 'writer'@'127.0.0.1'",
      "GRANT FILE ON *.* TO 'writer'@'127.0.0.1'",
    ].join(";"),
  );
}

/** Redis with a read-only ACL user `reader` and a few keys. */
export async function startRedis(): Promise<RunningServer & { readonly password: string }> {
  const dir = privateDir("pablo-redis-");
  const port = await freePort();
  const password = "reader-pw-91c2";
  const child = spawn(
    SETPRIV,
    [
      ...AS_NOBODY,
      REDIS[0] ?? "",
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      dir,
    ],
    { stdio: "ignore" },
  );
  const cli = (...args: string[]) =>
    execFileSync("/usr/bin/redis-cli", ["-h", "127.0.0.1", "-p", String(port), ...args], {
      stdio: "pipe",
    }).toString();
  try {
    await until(
      () => {
        if (cli("PING").trim() !== "PONG") throw new Error("not ready");
      },
      () => child.exitCode !== null,
      "redis-server",
    );
    seedRedis(cli, password);
  } catch (error) {
    await stopChild(child, dir);
    throw error;
  }
  return { port, dir, password, stop: () => stopChild(child, dir) };
}

function seedRedis(cli: (...args: string[]) => string, password: string): void {
  cli("ACL", "SETUSER", "reader", "on", `>${password}`, "~*", "+@read");
  cli("SET", "greeting", "hello");
  cli("SET", "leaky", "AKIAIOSFODNN7EXAMPLE");
  cli("HSET", "user:1", "name", "alice");
  cli("RPUSH", "queue", "a", "b", "c");
  for (let i = 0; i < 50; i++) cli("SET", `bulk:${i}`, String(i));
}

/** Writes a credentials file of mode 0600 owned by the host user. */
export function credentialsFile(dir: string, values: Record<string, string | number>): string {
  const path = join(dir, `credentials-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    path,
    Object.entries(values)
      .map(([k, v]) => `${k} = ${v}`)
      .join("\n"),
    { mode: 0o600 },
  );
  return path;
}
