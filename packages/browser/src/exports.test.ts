import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import { BrowserErrorCode, createBrowserPreviewTool } from "./index.js";

describe("@pablo/browser public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "BrowserErrorCode",
      "BrowserOptionsSchema",
      "BrowserPreviewArgs",
      "DEFAULT_BROWSER_CANDIDATES",
      "DEFAULT_BROWSER_OPTIONS",
      "MAX_SCREENSHOT_BYTES",
      "MAX_SERVED_FILE_BYTES",
      "browserCandidates",
      "createBrowserPreviewTool",
      "findBrowser",
      "parseBrowserOptions",
      "resolveBrowserOptions",
    ]);
  });

  it("registers every error code the tool returns", () => {
    expect(Object.values(BrowserErrorCode).sort()).toEqual([
      "INVALID_ARGUMENT",
      "LIMIT_EXCEEDED",
      "NOT_FOUND",
      "OUTSIDE_WORKSPACE",
      "SPECIAL_FILE",
      "SYMLINK_REFUSED",
      "TOOL_CANCELLED",
      "TOOL_CLEANUP_FAILED",
      "TOOL_DENIED",
      "TOOL_FAILED",
      "TOOL_TIMEOUT",
    ]);
  });

  it("declares a deferred, low-risk, read-only preview", () => {
    const tool = createBrowserPreviewTool({ workspace: "/tmp", scratchDir: "/tmp/scratch" });
    expect({
      name: tool.name,
      providerName: tool.providerName,
      risk: tool.risk,
      effects: tool.effects,
      category: tool.category,
      mutates: tool.mutates,
      deferred: tool.deferred,
    }).toEqual({
      name: "browser.preview",
      providerName: undefined,
      risk: "low",
      effects: ["fs.read", "ui"],
      category: "preview",
      mutates: false,
      deferred: true,
    });
  });

  it("shows the model this definition", () => {
    const tool = createBrowserPreviewTool({ workspace: "/tmp", scratchDir: "/tmp/scratch" });
    expect({
      summary: tool.summary,
      description: tool.description,
      schema: JSON.parse(JSON.stringify(tool.inputSchema)),
    }).toMatchInlineSnapshot(`
      {
        "description": "Opens a workspace page (an HTML file, or a directory's index.html) in a headless browser and returns its \`title\`, its visible \`text\` (bounded; \`textTruncated\` says when it was cut), the final \`url\`, and \`screenshot\`: the absolute path of a PNG of the viewport in the session scratch directory. The page and everything it loads come from the workspace only; requests to any other address are blocked and counted in \`blockedRequests\`. Paths are relative to the workspace.",
        "schema": {
          "additionalProperties": false,
          "properties": {
            "height": {
              "description": "Viewport height in CSS pixels (default 800).",
              "maximum": 1920,
              "minimum": 240,
              "type": "integer",
            },
            "path": {
              "description": "Workspace-relative path of an HTML file, or of a directory whose index.html is the page ("." for the workspace root).",
              "maxLength": 4096,
              "minLength": 1,
              "type": "string",
            },
            "wait_ms": {
              "description": "Extra milliseconds to let scripts run after the page's load event (default 0).",
              "maximum": 10000,
              "minimum": 0,
              "type": "integer",
            },
            "width": {
              "description": "Viewport width in CSS pixels (default 1280).",
              "maximum": 1920,
              "minimum": 320,
              "type": "integer",
            },
          },
          "required": [
            "path",
          ],
          "type": "object",
        },
        "summary": "Render a workspace HTML page headless: title, visible text, screenshot",
      }
    `);
  });
});
