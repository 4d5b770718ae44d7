import { type BatchScan, type FsPort, PortError } from "../port/types.js";
import { SCAN_CHUNK } from "./scan.js";
import { type SearchFile, searchListedFile } from "./search-serial.js";
import { type Bound, type WalkLimits, walkTree } from "./tree.js";

interface RunEvent {
  readonly kind: "run";
  readonly dir: number;
  readonly relative: readonly string[];
  readonly names: readonly string[];
  /** Which names pass `include`; only those were sent to a worker. */
  readonly included: readonly boolean[];
  readonly answer: Promise<BatchScan>;
  settled: boolean;
}
type Event = { readonly kind: "skip"; readonly what: "symlinks" | "special" } | RunEvent;

export interface ParallelSearch extends SearchFile {
  readonly scanFiles: NonNullable<FsPort["scanFiles"]>;
  readonly include: ((name: string) => boolean) | undefined;
  readonly maxMatches: number;
  readonly pathOf: (relative: readonly string[]) => string;
}

const BATCH = 128;
/** Most unconsumed batches before the walk waits for the workers. */
const WINDOW = 64;

/**
 * The walk runs on this thread while worker threads scan runs of files; their answers are consumed
 * strictly in walk order, so bounds and counts are those of a serial search. A directory
 * descriptor stays open until every batch naming it has been answered and consumed, because a
 * closed descriptor's number can be reused by another directory while a worker still resolves
 * names against it.
 */
export async function searchParallel(
  search: ParallelSearch,
  start: number,
  limits: WalkLimits,
): Promise<Bound | undefined> {
  const { io, tally } = search;
  const events: Event[] = [];
  const refs = new Map<number, number>();
  const closable = new Set<number>();
  let head = 0;
  let stopped: Bound | undefined;
  const request = {
    query: search.query.toString("utf8"),
    maxLines: search.maxMatches + 1,
    fileBytes: search.fileBytes,
    largeBytes: SCAN_CHUNK,
  };

  const release = async (dir: number) => {
    const left = (refs.get(dir) ?? 1) - 1;
    if (left > 0) return void refs.set(dir, left);
    refs.delete(dir);
    if (closable.delete(dir)) await io.close(dir).catch(() => undefined);
  };
  const dispatch = (dir: number, relative: readonly string[], names: readonly string[]) => {
    const included = names.map((name) => !search.include || search.include(name));
    const sent = names.filter((_, i) => included[i]);
    const answer = sent.length > 0 ? search.scanFiles(dir, sent, request) : Promise.resolve(emptyScan());
    const event: RunEvent = { kind: "run", dir, relative, names, included, answer, settled: false };
    const settle = () => {
      event.settled = true;
    };
    answer.then(settle, settle);
    refs.set(dir, (refs.get(dir) ?? 0) + 1);
    events.push(event);
  };
  const consume = async (event: Event): Promise<Bound | undefined> => {
    if (event.kind === "skip") {
      tally.skipped[event.what]++;
      return undefined;
    }
    try {
      return await consumeRun(search, event, await event.answer);
    } finally {
      await release(event.dir);
    }
  };
  /** Consumes answered events in order; blocks on the oldest while more than `window` wait. */
  const drain = async (window: number) => {
    while (stopped === undefined && head < events.length) {
      const event = events[head] as Event;
      if (event.kind === "run" && !event.settled && events.length - head <= window) break;
      head++;
      stopped = await consume(event);
    }
  };

  try {
    const walked = await walkTree(
      io,
      start,
      {
        runs: async (dir, names, relative) => {
          for (let i = 0; i < names.length; i += BATCH) dispatch(dir, relative, names.slice(i, i + BATCH));
          await drain(WINDOW);
          return stopped;
        },
      },
      limits,
      search.yielder,
      {
        onSkip: (what) => void events.push({ kind: "skip", what }),
        closeDir: async (dir) => {
          if (refs.has(dir)) closable.add(dir);
          else await io.close(dir).catch(() => undefined);
        },
      },
    );
    await drain(0);
    return stopped ?? walked.bound;
  } finally {
    // Abandoned batches (a bound, a cancellation, an error) are waited for before their directories close.
    for (const event of events.slice(head)) {
      if (event.kind !== "run") continue;
      await event.answer.catch(() => undefined);
      await release(event.dir);
    }
    for (const dir of closable) await io.close(dir).catch(() => undefined);
  }
}

/** Adds one answered batch to the tally in name order; a file too large for a worker is scanned here. */
async function consumeRun(
  search: ParallelSearch,
  event: RunEvent,
  answer: BatchScan,
): Promise<Bound | undefined> {
  const { tally } = search;
  const found = new Map(answer.found.map((f) => [f.index, f]));
  const errors = new Map(answer.errors.map((e) => [e.index, e]));
  let k = 0;
  for (let i = 0; i < event.names.length; i++) {
    if (!event.included[i]) {
      tally.skipped.excluded++;
      continue;
    }
    const index = k++;
    const status = answer.statuses[index];
    if (status === 0) {
      const hit = found.get(index);
      const path = () => search.pathOf([...event.relative, event.names[i] as string]);
      const bound = hit
        ? tally.add(path(), {
            bytes: answer.bytes[index] ?? 0,
            binary: hit.binary,
            matches: hit.matches,
            more: false,
          })
        : tally.add("", { bytes: answer.bytes[index] ?? 0, binary: false, matches: [], more: false });
      if (bound) return bound;
    } else if (status === 1) tally.skipped.symlinks++;
    else if (status === 2) tally.skipped.special++;
    else if (status === 4) tally.skipped.large++;
    else if (status === 5) {
      const name = event.names[i] as string;
      const bound = await searchListedFile(search, event.dir, name, search.pathOf([...event.relative, name]));
      if (bound) return bound;
    } else if (status === 6) {
      const error = errors.get(index);
      throw new PortError(error?.code ?? "EIO", error?.message ?? "a search worker failed");
    }
  }
  return undefined;
}

function emptyScan(): BatchScan {
  return { statuses: [], bytes: [], found: [], errors: [] };
}
