import { chmodSync, existsSync, symlinkSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { browserCandidates, DEFAULT_BROWSER_CANDIDATES, findBrowser } from "./find-browser.js";
import { useTree } from "./test-support/workspace.js";

describe("findBrowser", () => {
  it("gives a reason naming every candidate when none is there", () => {
    const tree = useTree();
    const missing = `${tree.outside}/chromium`;
    expect(findBrowser([missing])).toEqual({
      ok: false,
      reason: `no Chromium or Chrome executable found (${missing}: does not exist)`,
    });
    expect(findBrowser([])).toEqual({ ok: false, reason: "no browser path was configured or tried" });
  });

  it("never searches PATH or the working directory for a relative name", () => {
    const result = findBrowser(["chromium", "./chromium", "/usr/bin/../bin/chromium"]);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.reason).toBe(
      "no Chromium or Chrome executable found (chromium: not a normalized absolute path; ./chromium: not a normalized absolute path; /usr/bin/../bin/chromium: not a normalized absolute path)",
    );
  });

  it("refuses directories and files without the execute bit, and takes the first executable", () => {
    const tree = useTree();
    const plain = tree.write(`${tree.outside}/plain`, "#!/bin/sh\n");
    const runnable = tree.write(`${tree.outside}/runnable`, "#!/bin/sh\n");
    chmodSync(runnable, 0o755);
    symlinkSync(runnable, `${tree.outside}/alias`);
    // Root passes X_OK for any file with an execute bit, so the plain file has none at all.
    chmodSync(plain, 0o644);
    expect(findBrowser([tree.outside, plain, runnable])).toEqual({ ok: true, path: runnable });
    const refused = findBrowser([tree.outside, plain]);
    expect(refused.ok ? "" : refused.reason).toBe(
      `no Chromium or Chrome executable found (${tree.outside}: not a regular file; ${plain}: not executable)`,
    );
    // A host-configured link (Debian's alternatives) is the host's choice and is accepted.
    expect(findBrowser([`${tree.outside}/alias`])).toEqual({ ok: true, path: `${tree.outside}/alias` });
  });

  it("tries a configured path before the well-known locations", () => {
    expect(browserCandidates("/opt/chrome/chrome")).toEqual([
      "/opt/chrome/chrome",
      ...DEFAULT_BROWSER_CANDIDATES,
    ]);
    expect(browserCandidates(undefined)).toBe(DEFAULT_BROWSER_CANDIDATES);
  });

  it.skipIf(!existsSync("/usr/bin/chromium"))("finds Debian's chromium by its absolute path", () => {
    expect(findBrowser()).toEqual({ ok: true, path: "/usr/bin/chromium" });
  });
});
