/**
 * fs.read's revision (SHA-256 of the whole file, hashed from the descriptor that reads the page)
 * against `sha256sum` on a 1 GiB file, warm cache, same run. Prints both throughputs and their
 * ratio; the target is at least 0.8x sha256sum. Run with `pnpm bench`.
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fsSession, interleavedMedians, MiB, seeded } from "./support.js";

const SIZE = 1024 * MiB;
const RUNS = 3;
const dir = join(tmpdir(), "pablo-fs-bench-hash-v1");
const file = join(dir, "one-gib.txt");
ensureFile();

const session = await fsSession(dir);
let revision = "";
const ours = async () => {
  const { result } = await session.call({ tool: "fs_read", args: { path: "one-gib.txt", limit: 64 } });
  if (!result.ok) throw new Error(result.error.message);
  revision = (result.data as { revision: string }).revision;
};
let reference = "";
const sha256sum = () => {
  reference = spawnSync("sha256sum", [file]).stdout.toString().split(" ")[0] ?? "";
};

await ours();
sha256sum();
if (revision !== reference) throw new Error(`revision ${revision} differs from sha256sum ${reference}`);
const [oursMs, referenceMs] = await interleavedMedians(RUNS, ours, sha256sum);
const throughput = (ms: number) => SIZE / MiB / (ms / 1000);
const ratio = throughput(oursMs) / throughput(referenceMs);
console.log("fs.read revision hashing vs sha256sum: 1 GiB file, warm cache");
console.log(
  `  sha256sum: ${referenceMs.toFixed(0)} ms, ${throughput(referenceMs).toFixed(0)} MiB/s (median of ${RUNS})`,
);
console.log(
  `  fs.read:   ${oursMs.toFixed(0)} ms, ${throughput(oursMs).toFixed(0)} MiB/s (median of ${RUNS})`,
);
console.log(
  `  ratio ${ratio.toFixed(2)}x sha256sum throughput (target >= 0.8x): ${ratio >= 0.8 ? "met" : "NOT met"}`,
);
if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true });

/** 1 GiB of ASCII text (so the page is valid UTF-8), written once from a repeated pseudo-random MiB. */
function ensureFile(): void {
  if (existsSync(file) && statSync(file).size === SIZE) return;
  mkdirSync(dir, { recursive: true });
  const random = seeded(7);
  const block = Buffer.alloc(MiB);
  for (let i = 0; i < block.length; i++) block[i] = i % 80 === 79 ? 10 : 97 + Math.floor(random() * 26);
  const fd = openSync(file, "w");
  try {
    for (let written = 0; written < SIZE; written += block.length) writeSync(fd, block);
  } finally {
    closeSync(fd);
  }
}
