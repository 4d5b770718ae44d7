// Rewrites `import { a, b } from "@pablo/pkg"` into imports from the files that define `a` and `b`.
//
// Why: esbuild places a file in a chunk by which entry points reach it through import records,
// and a package's index (a barrel of `export { … } from "./file.js"`) reaches every file of the
// package. So a command that imports one function from `@pablo/audit` shared a chunk with the
// timeline page and its HTTP server, and every command paid to compile it. Importing from the
// defining file lets each file land in the chunk of the commands that really use it.
//
// Only pure barrels are looked through (files made of nothing but re-exports: they have no code
// of their own, and the workspace packages declare themselves free of import-time side effects),
// and a name this cannot place stays imported from the barrel, which is always correct.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const IMPORT = /^import\s*\{([^}]*)\}\s*from\s*"(@pablo\/[^"]+)";?$/gm;
const REEXPORT = /^export\s*\{([^}]*)\}\s*from\s*"([^"]+)";?$/;
const STAR = /^export\s*\*\s*from\s*"([^"]+)";?$/;

/**
 * Returns `text` with its named imports of `@pablo/*` entry points split per defining file, or
 * undefined when nothing changed. `resolveEntry(specifier)` gives the entry file's absolute path.
 */
export async function flattenBarrelImports(text, resolveEntry) {
  const matches = [...text.matchAll(IMPORT)];
  if (matches.length === 0) return undefined;
  let out = text;
  let changed = false;
  for (const match of matches) {
    const [statement, list, specifier] = match;
    const entry = await resolveEntry(specifier);
    if (!entry || !isPureBarrel(entry)) continue;
    const byFile = new Map();
    const kept = [];
    for (const raw of list
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (raw.startsWith("type ")) continue; // erased by the TypeScript loader anyway
      const [imported, local = imported] = raw.split(/\s+as\s+/);
      const origin = originOf(entry, imported);
      if (!origin) {
        kept.push(raw);
        continue;
      }
      const names = byFile.get(origin.file) ?? [];
      names.push(origin.name === local ? local : `${origin.name} as ${local}`);
      byFile.set(origin.file, names);
    }
    const lines = [...byFile].map(
      ([file, names]) => `import { ${names.join(", ")} } from ${JSON.stringify(file)};`,
    );
    if (kept.length > 0) lines.push(`import { ${kept.join(", ")} } from ${JSON.stringify(specifier)};`);
    out = out.replace(statement, lines.join("\n"));
    changed = true;
  }
  return changed ? out : undefined;
}

const barrels = new Map();

/** A file made only of `export … from` statements (and comments), parsed once. */
function barrel(file) {
  if (barrels.has(file)) return barrels.get(file);
  let parsed;
  try {
    const lines = stripComments(readFileSync(file, "utf8"))
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    const named = new Map();
    const stars = [];
    for (const line of lines) {
      const re = REEXPORT.exec(line);
      const star = STAR.exec(line);
      if (re) {
        for (const raw of re[1]
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)) {
          const [imported, exported = imported] = raw.split(/\s+as\s+/);
          named.set(exported, { from: resolve(dirname(file), re[2]), name: imported });
        }
      } else if (star) {
        stars.push(resolve(dirname(file), star[1]));
      } else {
        parsed = null;
        break;
      }
    }
    if (parsed !== null) parsed = { named, stars };
  } catch {
    parsed = null;
  }
  barrels.set(file, parsed);
  return parsed;
}

function isPureBarrel(file) {
  return barrel(file) !== null;
}

/** Where `name`, as exported by `file`, is defined: through nested barrels, never guessing. */
function originOf(file, name, depth = 0) {
  const parsed = barrel(file);
  if (!parsed) return declares(file, name) ? { file, name } : undefined;
  if (depth > 8) return undefined;
  const hit = parsed.named.get(name);
  if (hit) {
    if (!hit.from.startsWith("/") || !hit.from.endsWith(".js")) return undefined;
    return barrel(hit.from) ? originOf(hit.from, hit.name, depth + 1) : { file: hit.from, name: hit.name };
  }
  const found = parsed.stars.map((star) => originOf(star, name, depth + 1)).filter(Boolean);
  return found.length === 1 ? found[0] : undefined;
}

/** Whether a module (not a barrel) declares the export `name` itself. */
function declares(file, name) {
  let text;
  try {
    text = stripComments(readFileSync(file, "utf8"));
  } catch {
    return false;
  }
  const id = name.replace(/[$]/g, "\\$");
  const declaration = new RegExp(
    `^export\\s+(?:async\\s+)?(?:function\\*?|const|let|var|class)\\s+${id}(?![\\w$])`,
    "m",
  );
  if (declaration.test(text)) return true;
  const local = /^export\s*\{([^}]*)\}\s*;?$/gm;
  for (const m of text.matchAll(local)) {
    for (const raw of m[1].split(",").map((s) => s.trim())) {
      const exported = raw.split(/\s+as\s+/).pop();
      if (exported === name) return true;
    }
  }
  return false;
}

function stripComments(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}
