import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openAuditStore } from "./index.js";
import { sampleRecord } from "./test-support/records.js";

let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function scratch(): string {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-open-store-")));
  return dir;
}

describe("openAuditStore refuses a log no record can be appended to", () => {
  it.each(["jsonl", "sqlite"] as const)("a directory where the %s log should be", (kind) => {
    const path = join(scratch(), "audit.log");
    mkdirSync(path);
    expect(() => openAuditStore({ kind, path })).toThrow(
      expect.objectContaining({
        code: "AUDIT_WRITE_FAILED",
        message: expect.stringContaining("a directory"),
      }),
    );
  });

  it("a device such as /dev/full, which opens but takes no byte", () => {
    expect(() => openAuditStore({ path: "/dev/full" })).toThrow(
      expect.objectContaining({ code: "AUDIT_WRITE_FAILED", message: expect.stringContaining("a device") }),
    );
  });

  it("a path through a file", () => {
    const file = join(scratch(), "plain");
    writeFileSync(file, "x");
    expect(() => openAuditStore({ path: join(file, "state", "audit.jsonl") })).toThrow(
      expect.objectContaining({
        code: "AUDIT_WRITE_FAILED",
        message: expect.stringContaining(`${file} is a file, not a directory`),
      }),
    );
  });

  it("opens a log whose directories do not exist yet, and writes to it", async () => {
    const path = join(scratch(), "a", "b", "audit.jsonl");
    const store = openAuditStore({ path });
    store.append(sampleRecord(0));
    expect((await store.verify()).records).toBe(1);
    expect(store.failures ?? 0).toBe(0);
    await store.close();
  });
});
