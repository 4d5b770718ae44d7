/**
 * The two orderings of one session. Calls queue behind each other unless the host asked for
 * `parallel-reads`; tools with `mutates: true` never overlap either way.
 */
export class SessionSerial {
  readonly #concurrency: "sequential" | "parallel-reads";
  #callTail: Promise<void> = Promise.resolve();
  #mutationTail: Promise<void> = Promise.resolve();

  constructor(concurrency: "sequential" | "parallel-reads") {
    this.#concurrency = concurrency;
  }

  /** Runs one whole call in the session's call order. */
  call<T>(run: () => Promise<T>): Promise<T> {
    if (this.#concurrency === "parallel-reads") return run();
    const queued = this.#callTail.then(run);
    this.#callTail = queued.then(
      () => undefined,
      () => undefined,
    );
    return queued;
  }

  /**
   * Runs a tool body, after every earlier mutation of this session when it mutates. `run` may
   * `hold` the lock past its own end: a tool reported after the cleanup allowance may still be
   * writing, and the next mutation must wait until it really settles.
   */
  async mutation<T>(
    mutates: boolean,
    run: (hold: (work: Promise<unknown>) => void) => Promise<T>,
  ): Promise<T> {
    if (!mutates) return run(() => undefined);
    const previous = this.#mutationTail;
    let release!: () => void;
    this.#mutationTail = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: Promise<unknown>[] = [];
    await previous;
    try {
      return await run((work) => held.push(work));
    } finally {
      const settled = () => release();
      if (held.length === 0) settled();
      else void Promise.allSettled(held).then(settled);
    }
  }
}
