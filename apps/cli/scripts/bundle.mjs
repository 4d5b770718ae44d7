// Bundles the `pablo` binary into dist/main.js plus lazily loaded chunks under dist/chunks/.
//
// Why: Node 20 loads an ES module graph file by file, and the CLI's graph is about two thousand
// files (typebox alone is seven hundred), which cost over a second before any work began. One
// bundle with code splitting keeps the dynamic import() boundaries in cli.ts and providers.ts as
// separate chunks, so a command loads only the code it runs.
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { flattenBarrelImports } from "./flatten-barrels.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The bundle is the whole build (types are checked by `tsc --noEmit`). It is written beside dist/
// and swapped in whole, so a failed build leaves the last good binary and nothing stale survives.
const next = join(root, "dist.next");
await rm(next, { recursive: true, force: true });

/**
 * Modules that are only ever loaded once another module is loaded, each with that module: the
 * commands and providers come after cli.ts (its load table), and the commands that open a task,
 * the providers and the terminal broker only where the task core (distribution.ts and what it
 * imports) is loaded too.
 *
 * Why: esbuild puts each file in a chunk by the exact set of entry points that reach it, and it
 * does not know that a dynamic import inside the core only runs once the core is loaded. So every
 * core file a provider also imports (the kernel's errors, a typebox builder) was split from the
 * core into its own small chunk, and `pablo tools` loaded over forty files where a score do. An
 * import of the earlier module from each later one, added here at bundle time, gives the earlier
 * module's files one set, so they stay in a few chunks; at run time it loads nothing new, because
 * the earlier module is already loaded (or loading beside it) whenever the later one is.
 */
const CLI = join(root, "src", "cli.ts");
const TASK_CORE = join(root, "src", "distribution.ts");
const TASK_MODULES = [
  "commands/tools.ts",
  "commands/call.ts",
  "commands/run.ts",
  "commands/policy.ts",
  "commands/review.ts",
  "commands/skills.ts",
  "commands/mcp.ts",
  "commands/mcp-auth.ts",
  "commands/acp.ts",
  "commands/a2a.ts",
  "commands/audit-commands.ts",
  "command-support.ts",
  "provider-mcp.ts",
  "provider-a2a.ts",
  "provider-actions.ts",
  "provider-skills.ts",
  "provider-browser.ts",
  "broker.ts",
];
const LATER_MODULES = ["commands/actions.ts", "commands/plugin.ts", "commands/audit.ts", "output.ts"];
const ANCHORS = new Map([
  ...TASK_MODULES.map((file) => [join(root, "src", file), [CLI, TASK_CORE]]),
  ...LATER_MODULES.map((file) => [join(root, "src", file), [CLI]]),
  ...(await onDemandModules()).map((file) => [file, [CLI, TASK_CORE]]),
]);

/**
 * The modules a workspace package loads through its one lazy boundary (`on-demand.js`, a table of
 * `import()`s): a tool's implementation, loaded on the tool's first call, so only ever once the
 * task core that built the tool is loaded.
 */
async function onDemandModules() {
  const workspace = join(root, "..", "..");
  const modules = [];
  for (const group of ["packages", "plugins"]) {
    for (const pkg of await readdir(join(workspace, group)).catch(() => [])) {
      const dist = join(workspace, group, pkg, "dist");
      const files = await readdir(dist, { recursive: true }).catch(() => []);
      for (const file of files.filter((f) => f === "on-demand.js" || f.endsWith("/on-demand.js"))) {
        const boundary = join(dist, file);
        const text = await readFile(boundary, "utf8");
        for (const [, specifier] of text.matchAll(/import\("(\.{1,2}\/[^"]+)"\)/g)) {
          modules.push(join(dirname(boundary), specifier));
        }
      }
    }
  }
  return modules;
}

const REQUIRE_BANNER =
  'import { createRequire as __pabloCreateRequire } from "node:module"; const require = __pabloCreateRequire(import.meta.url);';

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: "src/main.ts" },
  outdir: "dist.next",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: "linked",
  logLevel: "warning",
  metafile: process.env.PABLO_BUNDLE_META !== undefined,
  // A native addon cannot be bundled; @pablo/audit loads it lazily and reports SQLITE_UNAVAILABLE
  // where it is missing, so it is resolved at run time from this package's node_modules.
  external: ["better-sqlite3"],
  plugins: [sideEffectFreeDependencies(), sourceRewrites()],
  // Bundled CommonJS dependencies call require(); an ES module has none, so each chunk gets one
  // (and keeps it only if it names require: see dropUnusedRequire).
  banner: { js: REQUIRE_BANNER },
});

/**
 * Treats every module under node_modules as free of import-time side effects, so a chunk keeps only
 * the parts of a dependency it uses: an SDK's index that re-exports its servers and storage drivers
 * costs a command only the client it calls. (The workspace packages say so in their package.json.)
 */
function sideEffectFreeDependencies() {
  return {
    name: "side-effect-free-dependencies",
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData?.resolved || args.path.startsWith("node:")) return undefined;
        const resolved = await pluginBuild.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: { resolved: true },
        });
        if (resolved.errors.length > 0 || resolved.external) return undefined;
        if (!resolved.path.includes("/node_modules/")) return undefined;
        return { ...resolved, sideEffects: false };
      });
    },
  };
}

/**
 * Reads `import Type from "typebox"` as `import * as Type from "typebox/type"`: the same functions
 * (typebox's default export is that module's namespace object), but a namespace import used only
 * as `Type.Object(...)` keeps just the builders a chunk calls, where a default export that is a
 * namespace object keeps all of them (the template-literal and script parsers with the rest).
 */
function typeboxNamespaceImports(text) {
  const DEFAULT_IMPORT = /^import Type(, \{[^}]*\})? from "typebox";$/m;
  if (!DEFAULT_IMPORT.test(text)) return undefined;
  return text.replace(DEFAULT_IMPORT, (_line, named) =>
    named
      ? `import * as Type from "typebox/type";\nimport${named.slice(1)} from "typebox";`
      : 'import * as Type from "typebox/type";',
  );
}

function anchorToEarlierModules(text, path) {
  const anchors = ANCHORS.get(path);
  if (!anchors) return undefined;
  return `${text}\n${anchors.map((anchor) => `import ${JSON.stringify(anchor)};`).join("\n")}\n`;
}

/**
 * The source rewrites above, applied to the CLI's sources and the workspace packages' builds
 * (one onLoad hook: esbuild runs only the first that returns contents).
 */
function sourceRewrites() {
  return {
    name: "source-rewrites",
    setup(pluginBuild) {
      pluginBuild.onLoad(
        { filter: /\/(packages|plugins)\/[^/]+\/dist\/.*\.js$|\/apps\/cli\/src\/.*\.ts$/ },
        async (args) => {
          const original = await readFile(args.path, "utf8");
          const resolveDir = dirname(args.path);
          const resolveEntry = async (specifier) => {
            const resolved = await pluginBuild.resolve(specifier, { kind: "import-statement", resolveDir });
            return resolved.errors.length > 0 || resolved.external ? undefined : resolved.path;
          };
          let text = original;
          text = typeboxNamespaceImports(text) ?? text;
          text = (await flattenBarrelImports(text, resolveEntry)) ?? text;
          text = anchorToEarlierModules(text, args.path) ?? text;
          if (text === original) return undefined;
          return { contents: text, loader: args.path.endsWith(".ts") ? "ts" : "js", resolveDir };
        },
      );
    },
  };
}

/**
 * Blanks the require banner of every output file whose code never names `require` (most chunks:
 * only bundled CommonJS needs it), so loading a chunk does not build a require function for
 * nothing. The line stays, empty, so the source maps still line up.
 */
async function dropUnusedRequire(dir) {
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith(".js")) continue;
    const file = join(dir, entry);
    const text = await readFile(file, "utf8");
    const at = text.indexOf(REQUIRE_BANNER);
    if (at < 0) continue;
    const rest = text.slice(at + REQUIRE_BANNER.length);
    if (/\brequire\b/.test(rest)) continue;
    await writeFile(file, text.slice(0, at) + rest);
  }
}

await dropUnusedRequire(next);

// PABLO_BUNDLE_META=FILE writes esbuild's metafile, to see which inputs each chunk carries.
if (result.metafile) await writeFile(process.env.PABLO_BUNDLE_META, JSON.stringify(result.metafile));
await rm(join(root, "dist"), { recursive: true, force: true });
await rename(next, join(root, "dist"));
