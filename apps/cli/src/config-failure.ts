import type { ConfigError } from "@pablo/config";

/**
 * Configuration that cannot be used: the CLI prints each error and exits 2. It has its own file so
 * that what opens providers and what opens the task can both throw it without importing each other.
 */
export class ConfigFailure extends Error {
  readonly errors: readonly ConfigError[];
  constructor(errors: readonly ConfigError[]) {
    super(errors.map((e) => e.message).join("; "));
    this.name = "ConfigFailure";
    this.errors = errors;
  }
}
