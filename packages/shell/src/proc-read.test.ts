import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readProcBytes, readProcText } from "./proc-read.js";
import { useWorkspace } from "./test-support/workspace.js";

describe("readProcBytes", () => {
  it("reads a proc file that reports size 0 to its end", () => {
    const stat = readProcText(`/proc/${process.pid}/stat`);
    expect(stat).toMatch(new RegExp(`^${process.pid} \\(.*\\) [A-Z] `));
    expect(stat.endsWith("\n")).toBe(true);
  });

  it("reads a file larger than its buffer whole, and a small one after it without the rest", () => {
    const dir = useWorkspace();
    const large = Buffer.alloc(3 * 4096 + 17, "x");
    large[large.length - 1] = 0x79;
    writeFileSync(join(dir, "large"), large);
    writeFileSync(join(dir, "small"), "abc");
    expect(readProcBytes(join(dir, "large")).equals(large)).toBe(true);
    expect(readProcText(join(dir, "small"))).toBe("abc");
    expect(readProcText(join(dir, "large")).length).toBe(large.length);
  });

  it("throws what open throws for a file that is not there", () => {
    expect(() => readProcBytes("/proc/0/stat")).toThrow(/ENOENT/);
  });
});
