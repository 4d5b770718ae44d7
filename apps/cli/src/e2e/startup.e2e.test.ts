/**
 * What the built binary loads to start a command: `pablo --help` loads no package at all, and
 * listing or calling the tools of a deployment without MCP servers, A2A remotes or actions loads
 * none of their SDKs and drivers, nor a model client or the browser driver. Read off the files the
 * process really imported (a module resolve hook records them), not off the sources.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { freshHome, personEnv, runPablo } from "./harness.js";

// esbuild writes each bundled module's path as a comment above its code.
const HEAVY = {
  "the MCP SDK": "node_modules/@modelcontextprotocol/sdk/",
  "the A2A SDK": "node_modules/@a2a-js/sdk/",
  "the model SDK": "node_modules/ai/",
  "a database driver": "node_modules/mysql2/",
  "the Redis client": "node_modules/@redis/client/",
  "the browser driver": "node_modules/puppeteer-core/",
  "an HTTP server framework": "node_modules/express/",
  "the SKILL.md and YAML parsers": "node_modules/gray-matter/",
  // Not on a terminal: no permission or question cards.
  "the terminal's permission cards": "src/broker.ts",
  "the terminal's question cards": "src/question-card.ts",
};

// BrowserPreview's tool, page runner and workspace file server (node:http): loaded only when a
// browser is found.
const BROWSER_PREVIEW = {
  "the browser preview tool": "packages/browser/dist/preview-tool.js",
  "the browser page runner": "packages/browser/dist/preview-run.js",
  "the browser preview's file server": "packages/browser/dist/workspace-server.js",
};

describe("what a command loads to start", () => {
  it("pablo --help loads the CLI's own code and no package", async () => {
    const loaded = await loadedFiles(["--help"]);
    expect(loaded.exitCode).toBe(0);
    expect(loaded.files.length).toBeGreaterThan(0);
    expect(carriers(loaded.files, "node_modules/")).toEqual([]);
    expect(carriers(loaded.files, "packages/kernel/")).toEqual([]);
  });

  it.each([[["tools", "--json"]], [["call", "fs.read", "--args", '{"path":"notes.txt"}', "--json"]]])(
    "pablo %j loads none of the SDKs and drivers the deployment does not use",
    async (args) => {
      const loaded = await loadedFiles(args);
      expect(loaded.exitCode).toBe(0);
      // It did load the kernel: the check below would pass vacuously otherwise.
      expect(carriers(loaded.files, "packages/kernel/").length).toBeGreaterThan(0);
      for (const [what, marker] of Object.entries(HEAVY)) {
        expect(carriers(loaded.files, marker), what).toEqual([]);
      }
    },
  );

  it("pablo tools --json loads the task core in a few chunks, not one per combination of importers", async () => {
    // Each file Node loads costs an open, a read and a module record: the bundle anchors the
    // modules loaded after the task core to it (scripts/bundle.mjs), which took this from 44 to 16.
    const loaded = await loadedFiles(["tools", "--json"]);
    expect(loaded.exitCode).toBe(0);
    expect(loaded.files.length).toBeLessThanOrEqual(24);
  });

  it("a deployment with an MCP server does load the MCP SDK (the lazy boundary opens)", async () => {
    const loaded = await loadedFiles(["tools", "--json"], {
      "pablo.toml": [
        "[options.mcp.servers.broken]",
        'transport = "stdio"',
        `command = ${JSON.stringify(process.execPath)}`,
        'args = ["-e", "process.exit(3)"]',
        'cwd = "/"',
        "required = false",
      ].join("\n"),
    });
    expect(carriers(loaded.files, HEAVY["the MCP SDK"]).length).toBeGreaterThan(0);
  });
});

describe("BrowserPreview's lazy boundary", () => {
  it("a deployment without BrowserPreview loads none of it", async () => {
    // Turned off rather than "not found": a configured path that does not exist falls back to the
    // installed browsers (/usr/bin/chromium where CI installs it), which attaches the tool.
    const loaded = await loadedFiles(["tools", "--json"], {
      "pablo.toml": "[options.browser]\nenabled = false\n",
    });
    expect(loaded.exitCode).toBe(0);
    expect(carriers(loaded.files, "packages/kernel/").length).toBeGreaterThan(0);
    for (const [what, marker] of Object.entries(BROWSER_PREVIEW)) {
      expect(carriers(loaded.files, marker), what).toEqual([]);
    }
  });

  it("a deployment whose browser is found loads the tool (the boundary opens)", async () => {
    // Any absolute executable is "found"; listing the tools never starts it.
    const loaded = await loadedFiles(["tools", "--json"], {
      "pablo.toml": `[options.browser]\npath = ${JSON.stringify(process.execPath)}\n`,
    });
    expect(loaded.exitCode).toBe(0);
    expect(JSON.parse(loaded.stdout).tools.map((t: { name: string }) => t.name)).toContain("browser.preview");
    expect(carriers(loaded.files, BROWSER_PREVIEW["the browser preview tool"]).length).toBeGreaterThan(0);
  });
});

async function loadedFiles(
  args: readonly string[],
  files: Record<string, string> = {},
): Promise<{ exitCode: number; stdout: string; files: string[] }> {
  const home = freshHome();
  const work = home.dir("work", { "notes.txt": "hello\n", ...files });
  const record = join(home.home, "loaded.txt");
  const hooks = home.write(
    "hooks.mjs",
    [
      'import { appendFileSync } from "node:fs";',
      "export async function resolve(specifier, context, next) {",
      "  const result = await next(specifier, context);",
      `  if (result.url.startsWith("file:")) appendFileSync(${JSON.stringify(record)}, result.url + "\\n");`,
      "  return result;",
      "}",
    ].join("\n"),
  );
  const register = home.write(
    "register.mjs",
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const config = files["pablo.toml"] ? ["--config", join(work, "pablo.toml")] : [];
  const [command, ...rest] = args;
  const finished = await runPablo([command as string, ...config, ...rest], {
    cwd: work,
    env: personEnv(home, { NODE_OPTIONS: `--import=${pathToFileURL(register).href}` }),
  });
  const urls = existsSync(record) ? readFileSync(record, "utf8").split("\n").filter(Boolean) : [];
  return {
    exitCode: finished.code,
    stdout: finished.stdout,
    files: [...new Set(urls)].map((url) => new URL(url).pathname),
  };
}

/** The loaded files whose code came from a path containing `marker`. */
function carriers(files: readonly string[], marker: string): string[] {
  return files.filter((file) => readFileSync(file, "utf8").includes(marker));
}
