import { chmodSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { setTimeout as delay } from "node:timers/promises";
import { defineLayer, type ToolResult } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { browserProcesses } from "./browser-processes.js";
import { createBrowserPreviewTool } from "./index.js";
import { previewProcesses } from "./test-support/processes.js";
import { useRecordingServer } from "./test-support/recording-server.js";
import { sessionFor } from "./test-support/session.js";
import { PNG_SIGNATURE, type TestTree, TINY_PNG, useTree } from "./test-support/workspace.js";

const CHROMIUM = "/usr/bin/chromium";

interface Preview {
  title: string;
  text: string;
  textTruncated: boolean;
  screenshot: string;
  url: string;
  blockedRequests: number;
}

function call(tree: TestTree, args: Record<string, unknown>, extra: { signal?: AbortSignal } = {}) {
  const tool = createBrowserPreviewTool({
    workspace: tree.workspace,
    scratchDir: tree.scratch,
    browserPath: CHROMIUM,
  });
  const { session, audit } = sessionFor([tool]);
  return session.call({ tool: "browser_preview", args, ...extra }).then((outcome) => ({ ...outcome, audit }));
}

function data(result: ToolResult): Preview {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.data as unknown as Preview;
}

function code(result: ToolResult): string | undefined {
  return result.ok ? undefined : String(result.error.code);
}

/** Run directories of this package's browsers (they live in the OS temp directory). */
function runDirectories(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("pablo-browser-") && !name.includes("test"));
}

describe.skipIf(!existsSync(CHROMIUM))("browser.preview in real Chromium", () => {
  it("returns the title, the visible text and a PNG in scratch, loading only workspace resources", async () => {
    const tree = useTree();
    const other = await useRecordingServer();
    tree.write("img/logo.png", TINY_PNG);
    tree.write(
      "site/index.html",
      `<!doctype html><html><head><title>Preview fixture</title></head><body>
      <h1>Hello from the workspace</h1>
      <div style="display:none">hidden words</div>
      <p id="img">image pending</p><p id="other">other pending</p><p id="outside">outside pending</p>
      <img id="logo" src="../img/logo.png">
      <img src="${other.origin}/pixel.png">
      <script>
        const logo = document.getElementById("logo");
        const show = (id, text) => { document.getElementById(id).textContent = text; };
        logo.onload = () => show("img", "image " + logo.naturalWidth + "x" + logo.naturalHeight);
        fetch("${other.origin}/probe").then(() => show("other", "other reached"), () => show("other", "other blocked"));
        fetch("http://example.com/").then(() => show("outside", "outside reached"), () => show("outside", "outside blocked"));
        try { new WebSocket("ws://127.0.0.1:${other.port}/socket"); } catch {}
      </script></body></html>`,
    );
    const before = runDirectories();

    const { result, audit } = await call(tree, { path: "site/", wait_ms: 300 });

    const page = data(result);
    expect(page.title).toBe("Preview fixture");
    expect(page.text).toContain("Hello from the workspace");
    expect(page.text).toContain("image 2x3");
    expect(page.text).toContain("other blocked");
    expect(page.text).toContain("outside blocked");
    expect(page.text).not.toContain("hidden words");
    expect(page.textTruncated).toBe(false);
    expect(page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/site\/$/);
    expect(page.blockedRequests).toBeGreaterThanOrEqual(3);
    expect(page.screenshot.startsWith(`${tree.scratch}/`)).toBe(true);
    expect(readFileSync(page.screenshot).subarray(0, 8)).toEqual(PNG_SIGNATURE);
    await delay(200);
    expect(other.hits).toEqual([]);
    expect(audit.records.at(-1)?.ok).toBe(true);
    expect(runDirectories()).toEqual(before);
  });

  it("serves no symbolic link, even one inside the page's own directory", async () => {
    const tree = useTree();
    tree.write(`${tree.outside}/secret.txt`, "outside secret");
    tree.link("leak.txt", `${tree.outside}/secret.txt`);
    tree.link("leak.html", `${tree.outside}/secret.txt`);
    tree.write(
      "index.html",
      `<title>links</title><p id="s">pending</p><script>
        fetch("leak.txt").then(async (r) => { document.getElementById("s").textContent = r.status + " " + (await r.text()); });
      </script>`,
    );

    const page = data((await call(tree, { path: ".", wait_ms: 300 })).result);
    expect(page.text).toContain("403");
    expect(page.text).not.toContain("outside secret");
    expect(code((await call(tree, { path: "leak.html" })).result)).toBe("SYMLINK_REFUSED");
  });

  it("refuses paths outside the workspace and missing pages before any browser starts", async () => {
    const tree = useTree();
    tree.write(`${tree.outside}/x.html`, "<title>outside</title>");
    const before = runDirectories();
    expect(code((await call(tree, { path: "../x.html" })).result)).toBe("OUTSIDE_WORKSPACE");
    expect(code((await call(tree, { path: `${tree.outside}/x.html` })).result)).toBe("OUTSIDE_WORKSPACE");
    expect(code((await call(tree, { path: "a/../x.html" })).result)).toBe("INVALID_ARGUMENT");
    expect(code((await call(tree, { path: "missing.html" })).result)).toBe("NOT_FOUND");
    expect(code((await call(tree, { path: "x.html", width: 10 })).result)).toBe("INVALID_ARGUMENT");
    expect(runDirectories()).toEqual(before);
  });

  it("lets the call's authority decide the page and every file it loads", async () => {
    const tree = useTree();
    tree.write("private/data.txt", "private data");
    tree.write("private/page.html", "<title>private</title>");
    tree.write(
      "index.html",
      `<title>public</title><p id="s">pending</p><script>
        fetch("private/data.txt").then(async (r) => { document.getElementById("s").textContent = "status " + r.status + " " + (await r.text()); });
      </script>`,
    );
    const layer = defineLayer({
      id: "deployment",
      "fs.read": { deny: [{ id: "no-private", path: `${tree.workspace}/private` }] },
    });
    const tool = createBrowserPreviewTool({
      workspace: tree.workspace,
      scratchDir: tree.scratch,
      browserPath: CHROMIUM,
    });
    const { session } = sessionFor([tool], [layer]);

    const page = data(
      (await session.call({ tool: "browser_preview", args: { path: "index.html", wait_ms: 300 } })).result,
    );
    expect(page.text).toContain("status 403");
    expect(page.text).not.toContain("private data");
    const denied = await session.call({ tool: "browser_preview", args: { path: "private/page.html" } });
    expect(code(denied.result)).toBe("TOOL_DENIED");
    expect(denied.decision.rule).toBe("no-private");
  });

  it("bounds the visible text at max_text_bytes without splitting a character", async () => {
    const tree = useTree();
    tree.write("big.html", `<title>big</title><p>${"é".repeat(3000)}</p>`);
    const tool = createBrowserPreviewTool({
      workspace: tree.workspace,
      scratchDir: tree.scratch,
      browserPath: CHROMIUM,
      options: { max_text_bytes: 1025 },
    });
    const page = data(
      (await sessionFor([tool]).session.call({ tool: "browser_preview", args: { path: "big.html" } })).result,
    );
    expect(page.textTruncated).toBe(true);
    expect(page.text).toBe("é".repeat(512));
  });

  it("kills every browser process and removes its profile when the call is aborted", async () => {
    const tree = useTree();
    tree.write("slow.html", "<title>slow</title><p>waiting</p>");
    const before = new Set(runDirectories());
    const abort = new AbortController();
    const pending = call(tree, { path: "slow.html", wait_ms: 10_000 }, { signal: abort.signal });

    const run = await waitFor(() => runDirectories().find((name) => !before.has(name)));
    const profile = `${tmpdir()}/${run}/profile`;
    // Aborted once a renderer runs: the page is loading, not the browser starting.
    await waitFor(() =>
      previewProcesses().some(
        (line) => line.includes(` --user-data-dir=${profile} `) && line.includes(" --type=renderer "),
      )
        ? true
        : undefined,
    );
    abort.abort();
    const { result } = await pending;

    expect(code(result)).toBe("TOOL_CANCELLED");
    expect(browserProcesses(profile)).toEqual([]);
    expect(existsSync(`${tmpdir()}/${run}`)).toBe(false);
    expect(existsSync(tree.scratch) ? readdirSync(tree.scratch) : []).toEqual([]);
  });

  it("stops at timeout_ms with TOOL_TIMEOUT and leaves no process behind", async () => {
    const tree = useTree();
    tree.write("slow.html", "<title>slow</title>");
    const before = new Set(runDirectories());
    const tool = createBrowserPreviewTool({
      workspace: tree.workspace,
      scratchDir: tree.scratch,
      browserPath: CHROMIUM,
      options: { timeout_ms: 1_000 },
    });
    const started = performance.now();
    const { result } = await sessionFor([tool]).session.call({
      tool: "browser_preview",
      args: { path: "slow.html", wait_ms: 10_000 },
    });
    expect(code(result)).toBe("TOOL_TIMEOUT");
    expect(performance.now() - started).toBeLessThan(6_000);
    expect(runDirectories().filter((name) => !before.has(name))).toEqual([]);
    expect(previewProcesses()).toEqual([]);
  });

  it("reports a browser that fails to start as TOOL_FAILED with the reason", async () => {
    const tree = useTree();
    tree.write("index.html", "<title>x</title>");
    const broken = tree.write(
      `${tree.outside}/fake-chromium`,
      "#!/bin/sh\necho 'no display here' >&2\nexit 3\n",
    );
    chmodSync(broken, 0o755);
    const before = runDirectories();
    const tool = createBrowserPreviewTool({
      workspace: tree.workspace,
      scratchDir: tree.scratch,
      browserPath: broken,
    });
    const { result } = await sessionFor([tool]).session.call({
      tool: "browser_preview",
      args: { path: "." },
    });
    expect(code(result)).toBe("TOOL_FAILED");
    expect(result.ok ? "" : result.error.message).toMatch(/did not start/);
    expect(runDirectories()).toEqual(before);

    const missing = createBrowserPreviewTool({
      workspace: tree.workspace,
      scratchDir: tree.scratch,
      browserPath: `${tree.outside}/no-such-browser`,
    });
    const gone = (await sessionFor([missing]).session.call({ tool: "browser_preview", args: { path: "." } }))
      .result;
    expect(code(gone)).toBe("TOOL_FAILED");
    expect(gone.ok ? "" : gone.error.message).toContain("does not exist");
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error("timed out waiting");
    await delay(20);
  }
}
