import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { openAuditStore } from "./index.js";
import { spawnWriter } from "./test-support/spawn-writer.js";
import { KINDS, storePath, tempDir } from "./test-support/stores.js";

const TRIALS = 6;

describe.each(KINDS)("the %s store when writers are killed with SIGKILL", (kind) => {
  it("keeps every acknowledged record and a chain that verifies, trial after trial", async () => {
    const path = storePath(tempDir(), kind);
    const acked: string[] = [];
    let kills = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      // Two writers at once, so a kill can land while the other waits on the lock.
      const writers = [spawnWriter(kind, path, `t${trial}a`), spawnWriter(kind, path, `t${trial}b`)];
      await Promise.all(writers.map((w) => w.started));
      await sleep(20 + ((trial * 37) % 150));
      for (const w of writers) {
        w.child.kill("SIGKILL");
        kills++;
      }
      await Promise.all(writers.map((w) => w.exited));
      acked.push(...writers.flatMap((w) => w.acked));
    }
    const store = openAuditStore({ kind, path });
    const report = await store.verify();
    expect(report.problem).toBeUndefined();
    expect(report.ok).toBe(true);
    const stored: string[] = [];
    for await (const r of store.records()) stored.push(r.callId);
    await store.close();
    expect(acked.filter((id) => !stored.includes(id))).toEqual([]);
    // Beyond the acknowledged ones, at most the record each killed writer was writing.
    expect(stored.length - acked.length).toBeGreaterThanOrEqual(0);
    expect(stored.length - acked.length).toBeLessThanOrEqual(kills);
  });
});

describe.each(KINDS)("the %s store with concurrent sessions", (kind) => {
  it("extends one chain, each session's records whole and in its own order", async () => {
    const path = storePath(tempDir(), kind);
    const writers = ["a", "b", "c"].map((name) => spawnWriter(kind, path, name, 80));
    expect(await Promise.all(writers.map((w) => w.exited))).toEqual([0, 0, 0]);
    const store = openAuditStore({ kind, path });
    expect(await store.verify()).toMatchObject({ ok: true, records: 240, head: { seq: 239 } });
    for (const name of ["a", "b", "c"]) {
      const ids: string[] = [];
      for await (const r of store.records({ sessionId: name })) ids.push(r.callId);
      expect(ids).toEqual(Array.from({ length: 80 }, (_, i) => `${name}-${i}`));
    }
    await store.close();
  });
});
