import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it, onTestFinished } from "vitest";
import { callAction, loadSigned } from "../test-support/catalog-fixture.js";

function useLogs() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "pablo-logs-")));
  onTestFinished(() => rmSync(base, { recursive: true, force: true }));
  const root = join(base, "logs");
  const outside = join(base, "outside");
  mkdirSync(join(root, "app"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(
    join(root, "app", "web.log"),
    "boot\nGET / 200\nERROR db down password=hunter22\nrecovered\nGET /x 200\n",
  );
  writeFileSync(join(root, "app", "old.log.gz"), gzipSync("ERROR archived failure\nok\n"));
  writeFileSync(join(outside, "private.log"), "ERROR outside the root\n");
  symlinkSync(join(outside, "private.log"), join(root, "app", "linked.log"));
  symlinkSync(outside, join(root, "escape"));
  return { root };
}

function action(root: string, config = "") {
  return loadSigned(`
name: search_logs
description: Search the application logs.
risk: read
builtin: log_search
builtin_config: { roots: ["${root}"], max_context: 2${config} }
redact: { builtin: [secrets] }
filters: [count, exclude]
`).action("search_logs");
}

type Data = { text: string; matches: number; files: number; limitsReached: string[]; count?: number };
const dataOf = (result: unknown) => (result as { data: Data }).data;

describe("log_search", () => {
  it("searches plain and gzip logs, with context, redacted", async () => {
    const { root } = useLogs();
    const result = await callAction(action(root), {
      params: { pattern: "ERROR", path: "app/*", context: 1 },
    });
    expect(result.ok).toBe(true);
    expect(dataOf(result).text).toBe(
      [
        `${root}/app/old.log.gz:1:ERROR archived failure`,
        `${root}/app/old.log.gz-2-ok`,
        `${root}/app/web.log-2-GET / 200`,
        `${root}/app/web.log:3:ERROR db down password=[REDACTED]`,
        `${root}/app/web.log-4-recovered`,
        "",
      ].join("\n"),
    );
  });

  it("does not follow links out of the root, as a file or as a directory", async () => {
    const { root } = useLogs();
    const result = await callAction(action(root), { params: { pattern: "outside", path: "**/*.log" } });
    expect(dataOf(result)).toMatchObject({ matches: 0, text: "" });
  });

  it("refuses a glob that leaves the root", async () => {
    const { root } = useLogs();
    for (const path of ["../outside/*.log", "/etc/*", "app/../../outside/*"]) {
      expect(await callAction(action(root), { params: { pattern: "x", path } })).toMatchObject({
        ok: false,
        error: { code: "INVALID_ARGUMENT" },
      });
    }
  });

  it("bounds a gzip bomb by its decompressed bytes", async () => {
    const { root } = useLogs();
    const bomb = join(root, "app", "bomb.log.gz");
    // 64 MiB of zeros compress to about 64 KiB.
    execFileSync("/bin/sh", ["-c", `head -c 67108864 /dev/zero | gzip -c > '${bomb}'`]);
    const started = performance.now();
    const result = await callAction(action(root, ", max_decompressed_bytes: 1048576"), {
      params: { pattern: "never", path: "app/bomb.log.gz" },
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(dataOf(result).limitsReached).toEqual(["decompressedBytes"]);
  });

  it("bounds files and matches", async () => {
    const { root } = useLogs();
    for (let i = 0; i < 5; i++) writeFileSync(join(root, "app", `n${i}.log`), "ERROR a\nERROR b\n");
    const files = await callAction(action(root, ", max_files: 2"), {
      params: { pattern: "ERROR", path: "app/n*.log" },
    });
    expect(dataOf(files)).toMatchObject({ files: 2, limitsReached: ["files"] });
    const matches = await callAction(action(root, ", max_matches: 3"), {
      params: { pattern: "ERROR", path: "app/n*.log" },
    });
    expect(dataOf(matches)).toMatchObject({ matches: 3, limitsReached: ["matches"] });
  });

  it("returns zero matches as a successful result, and counts through the filters", async () => {
    const { root } = useLogs();
    expect(
      await callAction(action(root), { params: { pattern: "nothing", path: "app/*.log" } }),
    ).toMatchObject({
      ok: true,
      data: { matches: 0 },
    });
    const counted = await callAction(action(root), {
      params: { pattern: "GET", path: "app/*.log" },
      count: true,
    });
    expect(dataOf(counted).count).toBe(2);
  });

  it("refuses more context than the catalog allows", async () => {
    const { root } = useLogs();
    expect(
      await callAction(action(root), { params: { pattern: "x", path: "app/*", context: 5 } }),
    ).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT" },
    });
  });
});
