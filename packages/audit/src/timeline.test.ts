import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { MemoryAuditSink } from "@pablo/kernel";
import puppeteer, { type Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderTimeline, serveTimeline } from "./index.js";
import { recordSession } from "./test-support/session.js";
import { tempDir } from "./test-support/stores.js";

const CHROMIUM = "/usr/bin/chromium";

describe.skipIf(!existsSync(CHROMIUM))("the timeline page in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      pipe: true,
      args: process.getuid?.() === 0 ? ["--no-sandbox"] : [],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("shows one row per call with its segments, filters them, and loads nothing remote", async () => {
    const audit = new MemoryAuditSink();
    await recordSession(audit);
    // Segments are drawn from the recorded timings; a fast machine can record a 0 ms overhead, so
    // the prompted calls get known, non-zero ones here (the page is what is tested, not the clock).
    const records = audit.records.map((r) =>
      r.prompted ? { ...r, overheadMs: Math.max(r.overheadMs, 3) } : r,
    );
    const server = await serveTimeline(renderTimeline(records, { title: "session s1" }));
    const page = await browser.newPage();
    const requested: string[] = [];
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      requested.push(request.url());
      if (request.url() === server.url) void request.continue();
      else void request.abort();
    });
    await page.setViewport({ width: 1200, height: 500 });
    await page.goto(server.url, { waitUntil: "load" });
    const shot = join(process.env["PABLO_TIMELINE_SHOT_DIR"] ?? tempDir(), "timeline.png");
    await page.screenshot({ path: shot, fullPage: true });
    expect(statSync(shot).size).toBeGreaterThan(5_000);

    const visible = () =>
      page.$$eval(".row:not(.hidden)", (rows) =>
        rows.map((r) => `${r.className} ${r.getAttribute("data-tool")}`),
      );
    expect(await visible()).toEqual([
      "row ok test.read",
      "row failed test.read",
      "row ok prompted test.write",
      "row denied test.write",
      "row ok prompted test.write",
    ]);
    // The prompted write has all three segments: the wait, the tool body, the overhead.
    expect(
      await page.$eval(".row.prompted", (r) => [...r.querySelectorAll(".seg")].map((seg) => seg.className)),
    ).toEqual(["seg wait", "seg body", "seg overhead"]);
    expect(await page.$eval(".row.denied", (r) => r.getAttribute("title"))).toBe(
      "deny by policy/no-etc: fs.write /etc/passwd: denied by rule no-etc (TOOL_DENIED)",
    );

    await page.select("#filter-decision", "deny");
    expect(await visible()).toEqual(["row denied test.write"]);
    await page.select("#filter-decision", "");
    await page.select("#filter-error", "NOT_FOUND");
    expect(await visible()).toEqual(["row failed test.read"]);
    await page.select("#filter-error", "");
    await page.select("#filter-tool", "test.write");
    expect(await visible()).toHaveLength(3);
    expect(await page.$eval("#shown", (e) => e.textContent)).toBe("3 of 5 shown");
    expect(await page.$$eval("svg polyline", (p) => p.length)).toBe(2);

    expect(requested).toEqual([server.url]);
    await page.close();
    await server.close();
  });
});
