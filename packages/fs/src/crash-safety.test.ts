import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { childBundle, freshDist, PACKAGE_DIR } from "./test-support/dist.js";
import { useTempDir } from "./test-support/harness.js";
import { stopChild } from "./test-support/processes.js";

const TRIALS = 200;
const LANES = 4;
const INITIAL = "initial\n";
const A = "alpha-line\n".repeat(12_000);
const B = "bravo-line-is-longer\n".repeat(9_000);

/** Writes A and B alternately through fs.write, each with the revision it just read, forever. */
const WRITER = (entry: string, kernel: string) => `
import { createFsTools } from ${JSON.stringify(entry)};
import { createCatalog, createKernel } from ${JSON.stringify(kernel)};
const [ws] = process.argv.slice(1);
const A = ${JSON.stringify(A.slice(0, 11))}.repeat(12000), B = ${JSON.stringify(B.slice(0, 21))}.repeat(9000);
const tools = await createFsTools({ workspace: ws });
const session = createKernel().openSession({ catalog: createCatalog(tools), permission: { mode: "auto" } });
process.stdout.write("ready\\n");
for (let i = 0; ; i++) {
  const read = (await session.call({ tool: "fs_read", args: { path: "target.txt", limit: 1 } })).result;
  const write = (await session.call({ tool: "fs_write", args: { path: "target.txt", content: i % 2 ? A : B, expected_revision: read.data.revision } })).result;
  if (!write.ok) { process.stderr.write(JSON.stringify(write) + "\\n"); process.exit(2); }
  process.stdout.write("w\\n");
}
`;

let script = "";
let bundleDir = "";
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), "pablo-bundle-"));
  const bundle = await childBundle(bundleDir);
  script = bundle
    ? WRITER(pathToFileURL(bundle).href, pathToFileURL(bundle).href)
    : WRITER(pathToFileURL(freshDist()).href, "@pablo/kernel");
}, 180_000);
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

describe("crash safety of fs.write", () => {
  it(`leaves the old or the new complete content when the writer is killed with SIGKILL (${TRIALS} trials)`, async () => {
    const outcomes = { initial: 0, a: 0, b: 0 };
    const lane = async (index: number) => {
      const ws = useTempDir(`pablo-crash-${index}-`);
      for (let trial = index; trial < TRIALS; trial += LANES) {
        writeFileSync(join(ws, "target.txt"), INITIAL);
        const { child, cycleMs } = await startWriter(ws);
        // After the first complete write, at a uniformly random moment of the next few.
        await sleep(Math.random() * 2 * cycleMs);
        await stopChild(child);
        expect(child.signalCode).toBe("SIGKILL");
        const content = readFileSync(join(ws, "target.txt"), "utf8");
        if (content === INITIAL) outcomes.initial++;
        else if (content === A) outcomes.a++;
        else if (content === B) outcomes.b++;
        else throw new Error(`trial ${trial}: torn content of ${content.length} bytes`);
        const [target, ...temporaries] = readdirSync(ws).sort((x, y) =>
          x === "target.txt" ? -1 : y === "target.txt" ? 1 : 0,
        );
        // Nothing but the target and the tool's own temporaries is ever left in the workspace.
        expect(target).toBe("target.txt");
        expect(temporaries.filter((name) => !name.startsWith(".pablo-"))).toEqual([]);
        // A kill between creating and renaming the temporary file leaves it behind (documented).
        for (const name of temporaries) rmSync(join(ws, name));
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    // What holds on every run: each kill left one complete version, and never the initial bytes,
    // because every kill comes after the first write completed. Where the kills landed (how many
    // A, B or leftover temporaries) depends on scheduling, so it is not asserted.
    expect(outcomes.initial).toBe(0);
    expect(outcomes.a + outcomes.b).toBe(TRIALS);
  }, 600_000);
});

/** Starts a writer and returns once its first write is complete, with how long that write took. */
async function startWriter(ws: string): Promise<{ child: ChildProcess; cycleMs: number }> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script, "--", ws], {
    cwd: PACKAGE_DIR,
    env: { PATH: "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let output = "";
  let ready = 0;
  const cycleMs = await new Promise<number>((resolve, reject) => {
    const exited = (status: number | null) => reject(new Error(`writer exited early with ${status}`));
    child.once("error", reject);
    child.once("exit", exited);
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (!ready && output.includes("ready\n")) ready = performance.now();
      if (ready && output.includes("w\n")) {
        child.off("exit", exited);
        child.stdout?.removeAllListeners("data");
        child.stdout?.resume();
        resolve(performance.now() - ready);
      }
    });
  });
  return { child, cycleMs };
}
