import { spawn } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withFileLock } from "./file-lock.js";
import { useTempDir } from "./test-support/temp-dir.js";

function tempTarget(): { dir: string; target: string } {
  const dir = useTempDir("pablo-file-lock-");
  return { dir, target: join(dir, "audit.jsonl") };
}

const lockModule = new URL("./file-lock.ts", import.meta.url).pathname;

/** A child that takes the lock, says so, then does as `then` says while still holding it. */
function holder(target: string, then: string): ReturnType<typeof spawn> {
  const script = `
    import { withFileLock } from ${JSON.stringify(lockModule)};
    withFileLock(${JSON.stringify(target)}, () => {
      process.stdout.write("held\\n");
      ${then}
    });
  `;
  return spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
}

function untilHeld(child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("held")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`holder exited (${code}) before taking the lock`)));
  });
}

const exited = (child: ReturnType<typeof spawn>) =>
  new Promise<void>((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.on("exit", () => resolve()),
  );

const lockFiles = (dir: string) => readdirSync(dir).filter((name) => name.includes(".lock"));

describe("the lock file beside an audit log", () => {
  it("excludes another process while held, and is free again once released", async () => {
    const { target } = tempTarget();
    const child = holder(target, "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);");
    await untilHeld(child);
    expect(withFileLock(target, () => "ran", 200)).toEqual({ value: "ran", locked: false });
    await exited(child);
    expect(withFileLock(target, () => "ran", 2_000)).toEqual({ value: "ran", locked: true });
  }, 20_000);

  it("is taken over from a process killed while holding it, and the dead owner's file is swept", async () => {
    const { dir, target } = tempTarget();
    const child = holder(target, "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);");
    await untilHeld(child);
    const ownerOfDead = `audit.jsonl.lock.owner-${child.pid}-0`;
    expect(lockFiles(dir)).toEqual(expect.arrayContaining(["audit.jsonl.lock", ownerOfDead]));
    child.kill("SIGKILL");
    await exited(child);
    expect(withFileLock(target, () => "ran", 5_000)).toEqual({ value: "ran", locked: true });
    // Only this process's own owner file is left: the lock released, the dead one's file removed.
    expect(lockFiles(dir)).toEqual([
      expect.stringMatching(new RegExp(`^audit\\.jsonl\\.lock\\.owner-${process.pid}-\\d+$`)),
    ]);
  }, 20_000);

  it("leaves no owner file behind when its process exits", async () => {
    const { dir, target } = tempTarget();
    const child = holder(target, "");
    await untilHeld(child);
    await exited(child);
    expect(lockFiles(dir)).toEqual([]);
  }, 20_000);

  it("respects a lock an exclusive-create writer made, and takes it over once that writer is gone", async () => {
    const { target } = tempTarget();
    const sleeper = spawn("sleep", ["30"], { stdio: "ignore" });
    writeFileSync(`${target}.lock`, `${sleeper.pid}\n`);
    expect(withFileLock(target, () => "ran", 200).locked).toBe(false);
    sleeper.kill("SIGKILL");
    await exited(sleeper);
    expect(withFileLock(target, () => "ran", 5_000)).toEqual({ value: "ran", locked: true });
  }, 20_000);
});
