/**
 * The deferred tools a session has loaded. Loading applies to the next model turn: names
 * activated during a turn are pending until {@link beginTurn}. Everything resets when the prompt
 * changes (key on `ctx.promptId` / `session.promptId`, which `session.beginPrompt()` renews), so
 * each new user prompt starts with only the always-on tools.
 */
export class DeferredToolSet {
  #promptId: string | undefined;
  readonly #loaded = new Set<string>();
  readonly #pending = new Set<string>();

  /** Marks tools (provider names) to load from the next turn of `promptId`. Returns the newly pending ones. */
  activate(promptId: string, names: readonly string[]): string[] {
    this.#sync(promptId);
    const added: string[] = [];
    for (const name of names) {
      if (this.#loaded.has(name) || this.#pending.has(name)) continue;
      this.#pending.add(name);
      added.push(name);
    }
    return added;
  }

  /** Starts a model turn: pending tools become loaded. Returns the loaded provider names. */
  beginTurn(promptId: string): readonly string[] {
    this.#sync(promptId);
    for (const name of this.#pending) this.#loaded.add(name);
    this.#pending.clear();
    return [...this.#loaded];
  }

  /** Loaded provider names for `promptId` (empty for a new prompt), without starting a turn. */
  loaded(promptId: string): readonly string[] {
    this.#sync(promptId);
    return [...this.#loaded];
  }

  /** Names activated in the current turn, to be loaded at the next. */
  pending(promptId: string): readonly string[] {
    this.#sync(promptId);
    return [...this.#pending];
  }

  isLoaded(promptId: string, name: string): boolean {
    this.#sync(promptId);
    return this.#loaded.has(name);
  }

  #sync(promptId: string): void {
    if (promptId === this.#promptId) return;
    this.#promptId = promptId;
    this.#loaded.clear();
    this.#pending.clear();
  }
}
