// Over 400 lines on purpose: log_search is one bounded pipeline (contained paths, globs, gzip with a
// decompressed-bytes bound, matches and context lines), and its bounds read best in one place.
import { isAbsolute, resolve } from "node:path";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { createLocalFs, type FsPort } from "@pablo/fs";
import { ErrorCode, fail } from "@pablo/kernel";
import { patternProblem } from "@pablo/shell/redact";
import { RE2JS } from "re2js";
import Type, { type Static } from "typebox";
import type { BuiltinHandler, BuiltinRunContext } from "./builtin.js";
import { checkConfig } from "./config.js";
import { type GlobComponent, parsePathGlob } from "./path-glob.js";

/** The handler's ceilings; `builtin_config` may only lower them. */
export const LOG_SEARCH_LIMITS = {
  maxFiles: 1000,
  maxFileBytes: 256 * 1024 * 1024,
  maxScanBytes: 1024 * 1024 * 1024,
  maxDecompressedBytes: 1024 * 1024 * 1024,
  maxMatches: 10_000,
  maxContext: 20,
} as const;

const MAX_LINE_CHARS = 4096;
const CHUNK = 64 * 1024;
const MAX_DEPTH = 32;

const ConfigSchema = Type.Object(
  {
    roots: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      minItems: 1,
      maxItems: 16,
      description:
        "Canonical absolute directories whose logs may be searched; nothing outside them is opened.",
    }),
    max_files: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LOG_SEARCH_LIMITS.maxFiles,
        description: "Most files searched per call (default 100).",
      }),
    ),
    max_file_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LOG_SEARCH_LIMITS.maxFileBytes,
        description: "Most bytes read from one file (default 64 MiB).",
      }),
    ),
    max_scan_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LOG_SEARCH_LIMITS.maxScanBytes,
        description: "Most bytes scanned per call, after decompression (default 64 MiB).",
      }),
    ),
    max_decompressed_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LOG_SEARCH_LIMITS.maxDecompressedBytes,
        description: "Most bytes one gzip file may decompress to (default 64 MiB): a gzip bomb stops here.",
      }),
    ),
    max_matches: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LOG_SEARCH_LIMITS.maxMatches,
        description: "Most matching lines (default 200).",
      }),
    ),
    max_context: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LOG_SEARCH_LIMITS.maxContext,
        description: "Most context lines a call may ask for (default 3).",
      }),
    ),
  },
  { additionalProperties: false },
);
type LogSearchConfig = Static<typeof ConfigSchema>;

const ParamsSchema = Type.Object(
  {
    pattern: Type.String({ minLength: 1, maxLength: 200, description: "RE2 pattern a line must contain." }),
    path: Type.String({
      minLength: 1,
      maxLength: 512,
      description:
        "Path glob relative to each log root (`app/*.log`, `**/*.gz`); `*`, `?`, `[...]` and `**`.",
    }),
    context: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: LOG_SEARCH_LIMITS.maxContext,
        description: "Lines of context before and after each match.",
      }),
    ),
  },
  { additionalProperties: false, description: "The search." },
);

interface Limits {
  readonly files: number;
  readonly fileBytes: number;
  readonly scanBytes: number;
  readonly decompressed: number;
  readonly matches: number;
  readonly context: number;
}

/**
 * `log_search`: searches plain and gzip logs under the signed roots, through the fs package's
 * contained port (each component opened relative to its parent without following links, special
 * files refused), bounded in files, bytes read, bytes scanned after decompression, matches and
 * context lines. No matches is a successful call with zero matches.
 */
export const logSearch: BuiltinHandler<LogSearchConfig> = {
  name: "log_search",
  summary: "Search allowed plain and gzip logs",
  effects: ["fs.read"],
  category: "read",
  paramsSchema: ParamsSchema,
  resolveConfig(raw) {
    const checked = checkConfig(ConfigSchema, raw);
    if (!checked.ok) return checked;
    for (const root of checked.config.roots) {
      if (!isAbsolute(root) || resolve(root) !== root)
        return { ok: false, problem: `root ${root} is not a canonical absolute path` };
    }
    return checked;
  },
  accesses(config, params) {
    const problem = paramsProblem(config, params);
    if (problem) return fail(ErrorCode.INVALID_ARGUMENT, problem);
    return config.roots.map((path) => ({ dimension: "fs.read" as const, path, root: "external" as const }));
  },
  async run(config, params, context) {
    const problem = paramsProblem(config, params);
    if (problem) return fail(ErrorCode.INVALID_ARGUMENT, problem);
    const glob = parsePathGlob(String(params["path"]));
    if (!glob.ok) return fail(ErrorCode.INVALID_ARGUMENT, glob.problem);
    const search = new Search(RE2JS.compile(String(params["pattern"])), limitsOf(config, params), context);
    const io = createLocalFs();
    for (const root of config.roots) {
      if (search.stopped) break;
      await search.root(io, root, glob.components);
    }
    return search.outcome();
  },
  async check(config) {
    const io = createLocalFs();
    for (const root of config.roots) {
      try {
        const opened = await io.openRoot(root);
        await io.close(opened.handle);
      } catch {
        return `log root ${root} cannot be opened`;
      }
    }
    return undefined;
  },
};

function paramsProblem(
  config: LogSearchConfig,
  params: Readonly<Record<string, unknown>>,
): string | undefined {
  const pattern = patternProblem(String(params["pattern"]));
  if (pattern) return `pattern: ${pattern}`;
  const context = params["context"];
  if (typeof context === "number" && context > (config.max_context ?? 3))
    return `context is at most ${config.max_context ?? 3}`;
  const glob = parsePathGlob(String(params["path"]));
  return glob.ok ? undefined : glob.problem;
}

function limitsOf(config: LogSearchConfig, params: Readonly<Record<string, unknown>>): Limits {
  return {
    files: config.max_files ?? 100,
    fileBytes: config.max_file_bytes ?? 64 * 1024 * 1024,
    scanBytes: config.max_scan_bytes ?? 64 * 1024 * 1024,
    decompressed: config.max_decompressed_bytes ?? 64 * 1024 * 1024,
    matches: config.max_matches ?? 200,
    context: typeof params["context"] === "number" ? params["context"] : 0,
  };
}

/** One call's walk and scan, with every bound it counts against. */
class Search {
  readonly #pattern: RE2JS;
  readonly #limits: Limits;
  readonly #context: BuiltinRunContext;
  readonly #lines: string[] = [];
  #files = 0;
  #scanned = 0;
  #matches = 0;
  readonly #flags = new Set<string>();
  readonly #skipped: string[] = [];

  constructor(pattern: RE2JS, limits: Limits, context: BuiltinRunContext) {
    this.#pattern = pattern;
    this.#limits = limits;
    this.#context = context;
  }

  get stopped(): boolean {
    return (
      this.#flags.has("files") ||
      this.#flags.has("scanBytes") ||
      this.#flags.has("matches") ||
      this.#expired()
    );
  }

  async root(io: FsPort, root: string, components: readonly GlobComponent[]): Promise<void> {
    let opened: { handle: number; canonical: string };
    try {
      opened = await io.openRoot(root);
    } catch {
      this.#skipped.push(`${root}: cannot be opened`);
      return;
    }
    try {
      await this.#walk(io, opened.handle, opened.canonical, components, 0);
    } finally {
      await io.close(opened.handle).catch(() => undefined);
    }
  }

  async #walk(
    io: FsPort,
    dir: number,
    path: string,
    components: readonly GlobComponent[],
    depth: number,
  ): Promise<void> {
    const [head, ...rest] = components;
    if (!head || this.stopped || depth > MAX_DEPTH) return;
    if (head.kind === "any-depth") {
      // `**` matches zero directories here, or one more level and `**` again.
      await this.#walk(io, dir, path, rest, depth);
    }
    const entries = await io.list(dir).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      if (this.stopped) return;
      const childPath = `${path}/${entry.name}`;
      if (head.kind === "any-depth") {
        if (entry.type === "directory")
          await this.#descend(io, dir, entry.name, childPath, components, depth);
        continue;
      }
      if (!head.pattern.testExact(entry.name)) continue;
      if (rest.length > 0) {
        if (entry.type === "directory") await this.#descend(io, dir, entry.name, childPath, rest, depth);
      } else if (entry.type === "file") await this.#file(io, dir, entry.name, childPath);
    }
  }

  async #descend(
    io: FsPort,
    dir: number,
    name: string,
    path: string,
    components: readonly GlobComponent[],
    depth: number,
  ) {
    let child: number;
    try {
      child = await io.openDir(dir, name);
    } catch {
      return;
    }
    try {
      await this.#walk(io, child, path, components, depth + 1);
    } finally {
      await io.close(child).catch(() => undefined);
    }
  }

  async #file(io: FsPort, dir: number, name: string, path: string): Promise<void> {
    if (this.#files >= this.#limits.files) {
      this.#flags.add("files");
      return;
    }
    this.#files++;
    let opened: { handle: number };
    try {
      opened = await io.openFile(dir, name);
    } catch (error) {
      this.#skipped.push(`${path}: ${(error as { code?: string }).code ?? "unreadable"}`);
      return;
    }
    try {
      const raw = Readable.from(
        readChunks(io, opened.handle, this.#limits.fileBytes, () => this.#flags.add("fileBytes")),
      );
      const gzip = name.endsWith(".gz");
      const source = gzip ? raw.pipe(createGunzip()) : raw;
      try {
        await this.#scan(source, path, gzip);
      } finally {
        raw.destroy();
      }
    } catch (error) {
      this.#skipped.push(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await io.close(opened.handle).catch(() => undefined);
    }
  }

  async #scan(source: Readable, path: string, gzip: boolean): Promise<void> {
    const canMatch = () => this.#matches < this.#limits.matches;
    const scanner = new LineScanner(this.#pattern, this.#limits.context, canMatch, (line, text, kind) => {
      if (kind === "match") this.#matches++;
      this.#lines.push(`${path}${kind === "match" ? ":" : "-"}${line}${kind === "match" ? ":" : "-"}${text}`);
      if (this.#matches >= this.#limits.matches) this.#flags.add("matches");
    });
    let decompressed = 0;
    for await (const chunk of source as AsyncIterable<Buffer>) {
      decompressed += chunk.length;
      if (gzip && decompressed > this.#limits.decompressed) {
        this.#flags.add("decompressedBytes");
        break;
      }
      if (this.#scanned + chunk.length > this.#limits.scanBytes) {
        scanner.push(chunk.subarray(0, this.#limits.scanBytes - this.#scanned));
        this.#scanned = this.#limits.scanBytes;
        this.#flags.add("scanBytes");
        break;
      }
      this.#scanned += chunk.length;
      scanner.push(chunk);
      if (this.stopped) break;
    }
    source.destroy();
    if (!this.#flags.has("matches")) scanner.end();
  }

  #expired(): boolean {
    return this.#context.signal.aborted || performance.now() > this.#context.deadline;
  }

  outcome() {
    const text = this.#lines.length > 0 ? `${this.#lines.join("\n")}\n` : "";
    return {
      ok: true as const,
      data: {
        files: this.#files,
        matches: this.#matches,
        scannedBytes: this.#scanned,
        limitsReached: [...this.#flags].sort(),
        skipped: this.#skipped.slice(0, 50),
      },
      text,
      scanLimited: this.#flags.size > 0,
    };
  }
}

async function* readChunks(
  io: FsPort,
  handle: number,
  maxBytes: number,
  onLimit: () => void,
): AsyncGenerator<Buffer> {
  let position = 0;
  for (;;) {
    const room = maxBytes - position;
    if (room <= 0) {
      const probe = Buffer.alloc(1);
      if ((await io.read(handle, probe, 0, 1, position)) > 0) onLimit();
      return;
    }
    const buffer = Buffer.alloc(Math.min(CHUNK, room));
    const read = await io.read(handle, buffer, 0, buffer.length, position);
    if (read === 0) return;
    position += read;
    yield buffer.subarray(0, read);
  }
}

/** Splits bytes into lines and reports matches with their context lines, each at most once. */
class LineScanner {
  readonly #pattern: RE2JS;
  readonly #context: number;
  readonly #emit: (line: number, text: string, kind: "match" | "context") => void;
  readonly #canMatch: () => boolean;
  #carry = "";
  #line = 0;
  readonly #before: { line: number; text: string }[] = [];
  #afterLeft = 0;
  readonly #decoder = new TextDecoder("utf-8");

  constructor(
    pattern: RE2JS,
    context: number,
    canMatch: () => boolean,
    emit: (line: number, text: string, kind: "match" | "context") => void,
  ) {
    this.#canMatch = canMatch;
    this.#pattern = pattern;
    this.#context = context;
    this.#emit = emit;
  }

  push(chunk: Uint8Array): void {
    const text = this.#carry + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    this.#carry = lines.pop() ?? "";
    // A line longer than the bound is cut: its head is still searched.
    if (this.#carry.length > MAX_LINE_CHARS * 4) this.#carry = this.#carry.slice(0, MAX_LINE_CHARS * 4);
    for (const line of lines) this.#take(line);
  }

  end(): void {
    if (this.#carry !== "") this.#take(this.#carry);
    this.#carry = "";
  }

  #take(raw: string): void {
    this.#line++;
    const text = raw.length > MAX_LINE_CHARS ? `${raw.slice(0, MAX_LINE_CHARS)}…` : raw;
    // Past the match bound a matching line is only context of the last match, if that.
    if (this.#canMatch() && this.#pattern.test(raw)) {
      for (const before of this.#before) this.#emit(before.line, before.text, "context");
      this.#before.length = 0;
      this.#emit(this.#line, text, "match");
      this.#afterLeft = this.#context;
      return;
    }
    if (this.#afterLeft > 0) {
      this.#afterLeft--;
      this.#emit(this.#line, text, "context");
      return;
    }
    if (this.#context === 0) return;
    this.#before.push({ line: this.#line, text });
    if (this.#before.length > this.#context) this.#before.shift();
  }
}
