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
  /** Whether to hand files to `scanFiles` yet, so many milliseconds into the search (see FsPort). */
  readonly scanReady: NonNullable<FsPort["scanReady"]>;
  /** Takes a queued batch on this thread (see FsPort); absent, this thread only walks and waits. */
  readonly scanQueued: FsPort["scanQueued"];
  /** Drops this search's batches nobody took, once it stops early (see FsPort). */
  readonly cancelScans: FsPort["cancelScans"];
  readonly include: ((name: string) => boolean) | undefined;
  readonly maxMatches: number;
  readonly pathOf: (relative: readonly string[]) => string;
}

const BATCH = 128;
/** Most unconsumed batches before the walk waits for the workers. */
const WINDOW = 64;

/**
 * The walk runs on this thread while worker threads scan runs of files; answers are consumed
 * strictly in walk order, so bounds and counts are those of a serial search. Until the port says to
 * hand files over it scans them itself, so a small tree is done before threads would have started.
 * After that it queues batches and, between directories and whenever it would wait, takes queued
 * batches itself (`scanQueued`): so a cold pool's boot costs no time and the calling thread is one
 * more scanner. A directory descriptor stays open until every batch naming it has been answered and
 * consumed, because a closed descriptor's number can be reused by another directory while a worker
 * still resolves names against it.
 */
export async function searchParallel(
  search: ParallelSearch,
  start: number,
  limits: WalkLimits,
): Promise<Bound | undefined> {
  const { io, tally } = search;
  const began = performance.now();
  // Nothing is queued while this thread scans, so it adds to the tally directly, in walk order.
  let handOff = search.scanReady(0);
  const events: Event[] = [];
  const refs = new Map<number, number>();
  const closable = new Set<number>();
  let head = 0;
  let stopped: Bound | undefined;
  const request = {
    query: search.needle.bytes.toString("utf8"),
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
  /** Scans the run's first names on this thread until the hand-off time; returns how many it took. */
  const scanHere = async (dir: number, names: readonly string[], relative: readonly string[]) => {
    let i = 0;
    while (i < names.length && !handOff) {
      const name = names[i++] as string;
      if (search.include && !search.include(name)) tally.skipped.excluded++;
      else {
        stopped = await searchListedFile(search, dir, name, () => search.pathOf([...relative, name]));
        if (stopped) break;
      }
      handOff = search.scanReady(performance.now() - began);
    }
    return i;
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
  /** Takes one queued batch on this thread; `spare` leaves the workers enough to go on with. */
  const help = async (spare: boolean) =>
    search.scanQueued !== undefined && (await search.scanQueued(search.yielder, spare));
  /**
   * Consumes answered events in order; while more than `window` wait, it blocks on the oldest,
   * after taking on this thread whatever batches are still queued.
   */
  const drain = async (window: number) => {
    while (stopped === undefined && head < events.length) {
      const event = events[head] as Event;
      if (event.kind === "run" && !event.settled) {
        if (events.length - head <= window) break;
        if (await help(false)) continue;
      }
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
          const here = handOff ? 0 : await scanHere(dir, names, relative);
          if (stopped) return stopped;
          for (let i = here; i < names.length; i += BATCH) dispatch(dir, relative, names.slice(i, i + BATCH));
          await drain(WINDOW);
          // Scan here what the workers would not get to soon, then walk on to feed them.
          while (stopped === undefined && (await help(true))) await drain(WINDOW);
          return stopped;
        },
      },
      limits,
      search.yielder,
      {
        onSkip: (what) => {
          if (events.length === 0) tally.skipped[what]++;
          else events.push({ kind: "skip", what });
        },
        closeDir: async (dir) => {
          if (refs.has(dir)) closable.add(dir);
          else await io.close(dir).catch(() => undefined);
        },
      },
    );
    await drain(0);
    return stopped ?? walked.bound;
  } finally {
    // Abandoned batches (a bound, a cancellation, an error) nobody took are dropped; the others are
    // waited for before their directories close.
    search.cancelScans?.(request);
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
  // Workers report found files and errors in index order.
  let found = 0;
  let k = 0;
  for (let i = 0; i < event.names.length; i++) {
    if (!event.included[i]) {
      tally.skipped.excluded++;
      continue;
    }
    const index = k++;
    const status = answer.statuses[index];
    if (status === 0) {
      const hit = answer.found[found]?.index === index ? answer.found[found++] : undefined;
      const bytes = answer.bytes[index] ?? 0;
      const bound = hit
        ? tally.add(search.pathOf([...event.relative, event.names[i] as string]), {
            bytes,
            binary: hit.binary,
            matches: hit.matches,
            more: false,
          })
        : tally.addUnmatched(bytes);
      if (bound) return bound;
    } else if (status === 1) tally.skipped.symlinks++;
    else if (status === 2) tally.skipped.special++;
    else if (status === 4) tally.skipped.large++;
    else if (status === 5) {
      const name = event.names[i] as string;
      const bound = await searchListedFile(search, event.dir, name, () =>
        search.pathOf([...event.relative, name]),
      );
      if (bound) return bound;
    } else if (status === 6) {
      const error = answer.errors.find((e) => e.index === index);
      throw new PortError(error?.code ?? "EIO", error?.message ?? "a search worker failed");
    }
  }
  return undefined;
}

function emptyScan(): BatchScan {
  return { statuses: [], bytes: [], found: [], errors: [] };
}
