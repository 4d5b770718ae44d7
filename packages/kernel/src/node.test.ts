import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createCatalog, createKernel } from "./index.js";
import { defaultAuditPath, JsonlAuditSink, readAuditFile, stateDirectory } from "./node.js";
import { useTempDir } from "./test-support/temp-dir.js";
import { echoTool } from "./test-support/tools.js";

const tempDir = () => useTempDir("pablo-kernel-");

describe("JSONL audit sink", () => {
  it("appends one complete line per call, readable while it is written", async () => {
    const path = join(tempDir(), "nested", "audit.jsonl");
    const sink = new JsonlAuditSink(path);
    const session = createKernel({ audit: sink }).openSession({ catalog: createCatalog([echoTool()]) });
    await session.call({ tool: "test_echo", args: { text: "one" } });
    await new Promise(setImmediate);
    expect(readAuditFile(path).records).toHaveLength(1);
    await session.call({ tool: "nope", args: {} });
    sink.flush();
    const { records, invalidLines } = readAuditFile(path);
    expect(invalidLines).toBe(0);
    expect(records.map((r) => [r.tool, r.decision])).toEqual([
      ["test.echo", "allow"],
      ["nope", "deny"],
    ]);
    sink.close();
  });

  it("never interleaves lines when several processes append at once", async () => {
    const path = join(tempDir(), "audit.jsonl");
    const nodeModule = new URL("./node.ts", import.meta.url).pathname;
    const script = `
      import { JsonlAuditSink } from ${JSON.stringify(nodeModule)};
      const sink = new JsonlAuditSink(process.argv[1]);
      const pad = "p".repeat(20000);
      for (let i = 0; i < 200; i++) { sink.write({ type: "tool.call", callId: process.pid + "-" + i, argsPreview: pad }); sink.flush(); }
    `;
    const writers = [1, 2, 3, 4].map(
      () =>
        new Promise<number>((resolve) => {
          const child = spawn(
            process.execPath,
            ["--import", "tsx", "--input-type=module", "-e", script, path],
            {
              stdio: "ignore",
            },
          );
          child.on("exit", (code) => resolve(code ?? -1));
        }),
    );
    expect(await Promise.all(writers)).toEqual([0, 0, 0, 0]);
    const lines = readFileSync(path, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(800);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });
});

describe("state directory", () => {
  it("follows XDG_STATE_HOME and falls back to ~/.local/state, never the workspace", () => {
    expect(stateDirectory({ XDG_STATE_HOME: "/x/state", HOME: "/home/a" })).toBe("/x/state/pablo");
    expect(stateDirectory({ XDG_STATE_HOME: "relative", HOME: "/home/a" })).toBe(
      "/home/a/.local/state/pablo",
    );
    expect(defaultAuditPath({ HOME: "/home/a" })).toBe("/home/a/.local/state/pablo/audit.jsonl");
  });
});
