import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { openOutputChannel } from "./output-channel.js";

describe("openOutputChannel", () => {
  it("names the child's end of the channel from this process, so it is known after the child has gone", async () => {
    const chunks: string[] = [];
    const channel = await openOutputChannel((chunk) => chunks.push(chunk.toString()));
    const target = channel.target();
    expect(target).toMatch(/^(socket|pipe):\[\d+\]$/);
    // The child reports what its own stdout is open on, then exits at once.
    const child = spawn("/bin/sh", ["-c", "readlink /proc/$$/fd/1"], {
      stdio: ["ignore", channel.stdio, "ignore"],
    });
    channel.attach(child.stdout);
    await Promise.all([once(child, "exit"), channel.closed]);
    expect(chunks.join("").trim()).toBe(target);
    expect(channel.target()).toBe(target);
  });

  it("keeps each run's output apart when the read buffers of closed channels are reused", async () => {
    for (let run = 0; run < 6; run++) {
      const chunks: string[] = [];
      const channel = await openOutputChannel((chunk) => chunks.push(chunk.toString()));
      const child = spawn("/bin/sh", ["-c", `printf run-${run}`], {
        stdio: ["ignore", channel.stdio, "ignore"],
      });
      channel.attach(child.stdout);
      await Promise.all([once(child, "exit"), channel.closed]);
      expect(chunks.join("")).toBe(`run-${run}`);
    }
  });
});
