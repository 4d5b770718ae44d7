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

  /** Runs a tool body, after every earlier mutation of this session when it mutates. */
  async mutation<T>(mutates: boolean, run: () => Promise<T>): Promise<T> {
    if (!mutates) return run();
    const previous = this.#mutationTail;
    let release!: () => void;
    this.#mutationTail = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    try {
      return await run();
    } finally {
      release();
    }
  }
}
