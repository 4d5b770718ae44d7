import { describe, expect, it } from "vitest";
import { createShellTool } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { useWorkspace } from "./test-support/workspace.js";

const GIB = 1024 ** 3;

describe("a multi-GiB flood of output", () => {
  it("keeps this process's memory flat and the progress events bounded", async () => {
    const workspace = useWorkspace();
    const { session, events } = sessionFor(createShellTool({ workspace }));
    // Warm up: the first run starts the socket-pair server and compiles the hot paths.
    await session.call({ tool: "shell_run", args: { command: "head -c 1M /dev/zero" } });
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const started = Date.now();
    const { result } = await session.call({
      tool: "shell_run",
      args: { command: "head -c 2G /dev/zero; echo tail-line", timeout_ms: 120_000 },
    });
    const seconds = (Date.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage().rss);

    expect(result).toMatchObject({ ok: true, data: { exitCode: 0, stdoutBytes: 2 * GIB + 10 } });
    const stdout = result.ok ? (result.data as { stdout: string }).stdout : "";
    // The stream is one line (no line feed before tail-line), shown only in part.
    expect(
      stdout.endsWith(
        `\0tail-line\n…[truncated 1 line; ${2 * GIB + 10 - 1024 ** 2} bytes over max_output_bytes were not captured]`,
      ),
    ).toBe(true);
    expect(stdout.length).toBeLessThanOrEqual(16_000);
    expect((peak - baseline) / 2 ** 20).toBeLessThan(32);

    const progress = events.events.filter((e) => e.type === "tool.progress" && e.kind === "stdout");
    // At most one event per 100 ms interval (plus the last), each carrying at most 16 KiB.
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(seconds * 10) + 3);
    expect(Math.max(...progress.map((e) => (e.type === "tool.progress" ? e.bytes : 0)))).toBeLessThan(
      17 * 1024 * 6,
    );
  });
});
