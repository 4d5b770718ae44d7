import { randomUUID } from "node:crypto";
import { flushAudit } from "./audit-record.js";
import { CancelledError } from "./cancellation.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { dispatchCall, dryRunCall } from "./dispatch.js";
import { ErrorCode } from "./errors.js";
import { recordRefusal } from "./host-refusal.js";
import type {
  CallOutcome,
  CallRequest,
  DryRunDecision,
  KernelOptions,
  SessionOptions,
  ToolVisibility,
} from "./kernel.js";
import type { Budget } from "./limits.js";
import { type PermissionProfile, permissionNeed } from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { SessionCore } from "./session-core.js";
import { admitStage } from "./stages.js";
import type { OperatingMode } from "./tool.js";

/**
 * One session: a frozen catalog seen through its authority layers, an operating mode, a
 * permission profile, session grants, a shared budget and the dispatch pipeline (`dispatch.ts`).
 */
export class Session {
  readonly id: string;
  readonly catalog: Catalog;
  readonly budget: Budget;
  readonly requester: string | undefined;
  readonly #core: SessionCore;

  constructor(kernel: KernelOptions, options: SessionOptions) {
    const parent = options.parent;
    this.#core = new SessionCore(kernel, options, parent ? parent.#core : undefined);
    this.id = this.#core.id;
    this.catalog = this.#core.catalog;
    this.budget = this.#core.budget;
    this.requester = this.#core.requester;
  }

  /** The authority layers, outermost first. */
  get layers(): readonly AuthorityLayer[] {
    return this.#core.layers;
  }

  /**
   * Adds an innermost layer for the rest of the session (an activated skill's allowed-tools, a
   * delegate's definition). Layers intersect, so this can only ever narrow what is allowed.
   */
  narrow(layer: AuthorityLayer): void {
    this.#core.narrow(layer);
  }

  get mode(): OperatingMode {
    return this.#core.mode;
  }
  get permission(): PermissionProfile {
    return this.#core.permission;
  }
  get promptId(): string {
    return this.#core.promptId;
  }

  /** Host-validated mode transition (EnterPlanMode and the like are validated by the host). */
  setMode(mode: OperatingMode): void {
    this.#core.mode = mode;
  }

  setPermission(profile: PermissionProfile): void {
    this.#core.permission = profile;
  }

  /** A new user prompt: per-prompt state (failed-edit counts, loaded deferred tools) starts over. */
  beginPrompt(): string {
    this.#core.promptId = randomUUID();
    return this.#core.promptId;
  }

  /** Cancels the running turn: running calls abort and outstanding permission requests deny. */
  cancelTurn(reason = "cancelled"): void {
    this.#core.inflight.abortAll(new CancelledError(reason));
  }

  /** Every catalog tool with whether this session may see it, and the decision that says so. */
  visibility(): ToolVisibility[] {
    const { mode, layers } = this.#core;
    return this.catalog.entries.map((entry) => {
      const admitted = admitStage(mode, layers, entry);
      if ("final" in admitted) {
        return { entry, visible: false, decision: admitted.decision, code: admitted.final.error.code };
      }
      // The read-only profile decides on effects alone, so a tool it denies is denied on every
      // call: it is not offered, and --explain says which rule keeps it out.
      const profile = this.#core.permission;
      if (profile.mode === "read-only") {
        const { risk, category, effects } = entry.definition;
        const need = permissionNeed(profile, { risk, category, effects, accesses: [] });
        if (need.need === "deny") {
          return {
            entry,
            visible: false,
            code: ErrorCode.TOOL_DENIED,
            decision: { verdict: "deny", layer: "permission", rule: need.rule, reason: need.reason },
          };
        }
      }
      return { entry, visible: true, decision: admitted.decision ?? DEFAULT_ALLOW };
    });
  }

  /** The tools a model may be offered in this session. */
  visibleTools(): CatalogEntry[] {
    return this.visibility()
      .filter((v) => v.visible)
      .map((v) => v.entry);
  }

  /**
   * Decides the call exactly as {@link call} would, through the same function, and reports the
   * decision: the budget it would spend, the broker it would ask. Runs, asks and audits nothing.
   */
  dryRun(request: CallRequest): Promise<DryRunDecision> {
    return dryRunCall(this.#core, request);
  }

  /**
   * Audits a call the host answered without dispatching it (a batch rule, a tool the model may not
   * call yet), so that every call a model made has its record. Returns the result to give the model.
   */
  recordRefusal(
    request: CallRequest,
    refusal: { code: string; message: string; rule: string },
  ): Promise<CallOutcome> {
    return recordRefusal(this.#core, request, refusal);
  }

  /** Dispatches one call through the whole pipeline. Never throws for anything a model did. */
  call(request: CallRequest): Promise<CallOutcome> {
    return this.#core.serial.call(() => dispatchCall(this.#core, request));
  }

  /**
   * Writes out what the kernel's audit sink queued (a batching sink such as the JSONL store holds
   * records until the end of the event-loop turn), this session's finished calls among them. A host
   * awaits it before it tells anyone a turn is over, so whoever reads the log then finds every call
   * of the turn. Never throws.
   */
  flushAudit(): Promise<void> {
    return flushAudit(this.#core.options.audit);
  }
}

const DEFAULT_ALLOW = Object.freeze({
  verdict: "allow" as const,
  layer: "default",
  rule: "default",
  reason: "no rule restricts this call",
});
