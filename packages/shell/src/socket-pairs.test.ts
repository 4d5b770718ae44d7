import { spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { privateSocketPath, takeSocketPair } from "./socket-pairs.js";

/** Paths of the Unix sockets this process listens on, as /proc/net/unix shows them to anyone. */
function listeningPaths(): string[] {
  const ours = new Set(
    readdirSync("/proc/self/fd")
      .map((fd) => {
        try {
          return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1];
        } catch {
          return undefined;
        }
      })
      .filter((inode) => inode !== undefined),
  );
  const ACCEPTING = 0x10000;
  return readFileSync("/proc/net/unix", "utf8")
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(
      (f) =>
        f.length >= 8 && ours.has(f[6] as string) && (Number.parseInt(f[3] as string, 16) & ACCEPTING) !== 0,
    )
    .map((f) => f[7] as string);
}

describe("socket pairs", () => {
  it("come from a listener in a 0700 directory, not in the abstract namespace anyone can reach", async () => {
    const pair = await takeSocketPair(() => undefined);
    pair.reader.destroy();
    pair.writer.destroy();
    const paths = listeningPaths();
    expect(paths.filter((path) => path.startsWith("@"))).toEqual([]);
    const listener = paths.find((path) => path.endsWith("/out.sock"));
    expect(listener).toContain("pablo-pairs-");
    const directory = statSync(dirname(listener as string));
    expect(directory.mode & 0o777).toBe(0o700);
    expect(directory.uid).toBe(process.getuid?.());
  });

  it("closes connections that never send a token, and still makes pairs meanwhile", async () => {
    await takeSocketPair(() => undefined).then((pair) => pair.reader.destroy());
    const listener = listeningPaths().find((path) => path.endsWith("/out.sock")) as string;
    const silent = Array.from({ length: 100 }, () => {
      const socket = connect(listener);
      socket.on("error", () => undefined);
      return socket;
    });
    const received: Buffer[] = [];
    const pair = await takeSocketPair((chunk) => received.push(Buffer.from(chunk)));
    pair.writer.end("through the pair");
    await once(pair.reader, "close");
    expect(Buffer.concat(received).toString()).toBe("through the pair");
    // The listener ends each silent connection after its 2 s allowance.
    await Promise.all(silent.map((socket) => once(socket, "close")));
  }, 10_000);

  it("sweeps the directories of processes that are gone, and only those", () => {
    const prefix = "pablo-sweep-test-";
    const gone = spawnSync("/bin/true").pid as number;
    const stale = join(tmpdir(), `${prefix}${gone}-aaaaaa`);
    const live = join(tmpdir(), `${prefix}${process.pid}-bbbbbb`);
    for (const dir of [stale, live]) {
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, "out.sock"), "");
    }
    try {
      const made = privateSocketPath(prefix, "out.sock");
      expect(made.startsWith(join(tmpdir(), `${prefix}${process.pid}-`))).toBe(true);
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(live)).toBe(true);
      rmSync(dirname(made), { recursive: true, force: true });
    } finally {
      rmSync(stale, { recursive: true, force: true });
      rmSync(live, { recursive: true, force: true });
    }
  });
});
