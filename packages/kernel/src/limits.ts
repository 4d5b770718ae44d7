import Type, { type Static } from "typebox";

const MiB = 1024 * 1024;

/** Host limits. Counts are `null` for unlimited; a zero count disables that kind of call. */
export const LimitsSchema = Type.Object(
  {
    runDeadlineMs: Type.Integer({ minimum: 1, description: "Run deadline (default 1 h)." }),
    shellDeadlineMs: Type.Integer({
      minimum: 1,
      description: "Longest a shell command may run (default 15 min).",
    }),
    toolArgumentBytes: Type.Integer({
      minimum: 2,
      description: "Largest tool-argument JSON text (default 1 MiB).",
    }),
    toolResultBytes: Type.Integer({
      minimum: 512,
      description: "Largest serialized tool result (default 8 MiB).",
    }),
    requestContextBytes: Type.Integer({ minimum: 1, description: "Largest model request (default 32 MiB)." }),
    modelOutputBytes: Type.Integer({ minimum: 1, description: "Largest model output (default 4 MiB)." }),
    nativeEvents: Type.Integer({ minimum: 0, description: "Native events per run (default 1,000,000)." }),
    modelCalls: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Model calls; null is unlimited.",
    }),
    toolCalls: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Tool calls; null is unlimited.",
    }),
  },
  { additionalProperties: false },
);

export type Limits = Static<typeof LimitsSchema>;

/** The defaults of seed 000's table. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  runDeadlineMs: 60 * 60 * 1000,
  shellDeadlineMs: 15 * 60 * 1000,
  toolArgumentBytes: 1 * MiB,
  toolResultBytes: 8 * MiB,
  requestContextBytes: 32 * MiB,
  modelOutputBytes: 4 * MiB,
  nativeEvents: 1_000_000,
  modelCalls: null,
  toolCalls: null,
});

/** Fills unspecified limits with the defaults. */
export function resolveLimits(overrides?: Partial<Limits>): Limits {
  return { ...DEFAULT_LIMITS, ...(overrides ?? {}) };
}

export type BudgetRefusal = { readonly ok: false; readonly reason: string };
export type BudgetGrant = { readonly ok: true };

const GRANTED: BudgetGrant = Object.freeze({ ok: true });

/**
 * The budgets of one run, shared by the root session and its children: counts and the deadline
 * are spent together, never reset per child.
 */
export class Budget {
  readonly limits: Limits;
  readonly startedAt: number;
  readonly deadline: number;
  #modelCalls = 0;
  #toolCalls = 0;
  #events = 0;
  #eventsDropped = 0;
  readonly #now: () => number;

  constructor(limits: Limits, now: () => number = Date.now) {
    this.limits = limits;
    this.#now = now;
    this.startedAt = now();
    this.deadline = this.startedAt + limits.runDeadlineMs;
  }

  get modelCallsUsed(): number {
    return this.#modelCalls;
  }
  get toolCallsUsed(): number {
    return this.#toolCalls;
  }
  get eventsEmitted(): number {
    return this.#events;
  }
  get eventsDropped(): number {
    return this.#eventsDropped;
  }

  /** Model calls left, or `Infinity` when unlimited. */
  modelCallsRemaining(): number {
    return this.limits.modelCalls === null
      ? Number.POSITIVE_INFINITY
      : this.limits.modelCalls - this.#modelCalls;
  }

  /** Spends one model call, or refuses when none remain or the deadline passed. */
  takeModelCall(): BudgetGrant | BudgetRefusal {
    if (this.#now() >= this.deadline) return { ok: false, reason: "the run deadline has passed" };
    if (this.modelCallsRemaining() <= 0) return { ok: false, reason: "no model calls remain" };
    this.#modelCalls++;
    return { ok: true };
  }

  /**
   * Spends one tool call. Refuses when tool calls are spent or disabled, when the deadline has
   * passed, and when no model call remains to read the tool's result.
   */
  takeToolCall(): BudgetGrant | BudgetRefusal {
    const check = this.checkToolCall();
    if (check.ok) this.#toolCalls++;
    return check;
  }

  /** What {@link takeToolCall} would answer now, spending nothing (a dry run asks this). */
  checkToolCall(): BudgetGrant | BudgetRefusal {
    if (this.#now() >= this.deadline) return { ok: false, reason: "the run deadline has passed" };
    if (this.limits.toolCalls !== null && this.#toolCalls >= this.limits.toolCalls) {
      return {
        ok: false,
        reason: this.limits.toolCalls === 0 ? "tool calls are disabled" : "no tool calls remain",
      };
    }
    if (this.modelCallsRemaining() <= 0) {
      return { ok: false, reason: "no model call remains to read the tool's result" };
    }
    return GRANTED;
  }

  /** Counts one native event; false once the event budget is spent (the event is dropped). */
  takeEvent(): boolean {
    if (this.#events >= this.limits.nativeEvents) {
      this.#eventsDropped++;
      return false;
    }
    this.#events++;
    return true;
  }

  /** Milliseconds until the run deadline (never negative). */
  remainingMs(): number {
    return Math.max(0, this.deadline - this.#now());
  }
}
