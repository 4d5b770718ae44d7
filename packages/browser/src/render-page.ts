import { writeFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { Browser, HTTPRequest, Page } from "puppeteer-core";
import { cutUtf8 } from "./bounded-text.js";

export interface RenderRequest {
  readonly url: string;
  /** The one origin requests may go to. */
  readonly origin: string;
  readonly waitMs: number;
  readonly maxTextBytes: number;
  readonly maxTitleChars: number;
  readonly maxScreenshotBytes: number;
  /** Absolute path the PNG is written to, created exclusively. */
  readonly screenshotPath: string;
  /** Milliseconds navigation may take. */
  readonly timeoutMs: number;
  /** Aborted when the call is over; nothing is written after that. */
  readonly signal: AbortSignal;
}

export interface PageFacts {
  readonly title: string;
  readonly text: string;
  readonly textTruncated: boolean;
  readonly url: string;
  /** Requests of the page for anything but the origin, aborted by interception. */
  readonly blockedRequests: number;
  readonly screenshot: string;
  readonly screenshotBytes: number;
}

/**
 * Loads one URL in the browser's first tab and reads what a person would see: the title, the
 * visible text (`innerText`, so hidden elements are left out) and a viewport screenshot. Every
 * request of the page passes interception, which continues only same-origin requests.
 */
export async function renderPage(browser: Browser, request: RenderRequest): Promise<PageFacts> {
  const page = (await browser.pages())[0] ?? (await browser.newPage());
  const blocked = { count: 0 };
  await guard(page, request.origin, blocked);
  await page.goto(request.url, { waitUntil: "load", timeout: request.timeoutMs });
  // Waited here, not in the page: a page could replace its own setTimeout.
  if (request.waitMs > 0) await delay(request.waitMs, undefined, { signal: request.signal });
  // Slice in the page so a huge document does not cross the pipe whole; chars never exceed bytes.
  const read = await page.evaluate(
    (maxChars, maxTitle) => {
      // Runs in the page; this package is compiled without the DOM library.
      const doc = (globalThis as unknown as { document: PageDocument }).document;
      return {
        title: doc.title.slice(0, maxTitle),
        // biome-ignore lint/performance/useDomNodeTextContent: rendered text is the point; hidden elements are left out
        text: (doc.body?.innerText ?? "").slice(0, maxChars + 1),
      };
    },
    request.maxTextBytes,
    request.maxTitleChars,
  );
  const text = cutUtf8(read.text, request.maxTextBytes);
  const png = await boundedScreenshot(page, request.maxScreenshotBytes);
  if (request.signal.aborted) throw request.signal.reason;
  await writeFile(request.screenshotPath, png, { flag: "wx", mode: 0o600 });
  return {
    title: read.title,
    text: text.text,
    textTruncated: text.truncated,
    url: page.url(),
    blockedRequests: blocked.count,
    screenshot: request.screenshotPath,
    screenshotBytes: png.length,
  };
}

interface PageDocument {
  readonly title: string;
  readonly body: { readonly innerText: string } | null;
}

async function guard(page: Page, origin: string, blocked: { count: number }): Promise<void> {
  page.on("dialog", (dialog) => void dialog.dismiss().catch(() => undefined));
  page.on("popup", (popup) => void popup?.close().catch(() => undefined));
  await page.setRequestInterception(true);
  page.on("request", (request: HTTPRequest) => {
    if (request.isInterceptResolutionHandled()) return;
    if (sameOrigin(request.url(), origin)) {
      void request.continue().catch(() => undefined);
    } else {
      blocked.count += 1;
      void request.abort("blockedbyclient").catch(() => undefined);
    }
  });
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/** A PNG of the viewport within the byte bound; a busy page is retaken at half scale once. */
async function boundedScreenshot(page: Page, maxBytes: number): Promise<Uint8Array> {
  const full = await page.screenshot({ type: "png" });
  if (full.length <= maxBytes) return full;
  const viewport = page.viewport() ?? { width: 800, height: 600 };
  const half = await page.screenshot({
    type: "png",
    clip: { x: 0, y: 0, width: viewport.width, height: viewport.height, scale: 0.5 },
  });
  if (half.length <= maxBytes) return half;
  throw new ScreenshotTooLarge(half.length, maxBytes);
}

export class ScreenshotTooLarge extends Error {
  constructor(
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the screenshot has ${bytes} bytes even at half scale, over ${limit}`);
    this.name = "ScreenshotTooLarge";
  }
}
