import { createHash, randomUUID } from "node:crypto";
import type { Tracer } from "@opentelemetry/api";
import type { Access } from "./access.js";
import type { AuditRecord, AuditSink } from "./audit.js";
import { type Decision, defineLayer, evaluateAuthority } from "./authority.js";
import { boundResult } from "./bound.js";
import { CallAbort } from "./call-abort.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { ErrorCode, HostErrorCode, PabloError } from "./errors.js";
import type { EventSink, KernelEvent } from "./events.js";
import { canonicalJson, type JsonValue } from "./json.js";
import { Budget, type Limits, resolveLimits } from "./limits.js";
import { modeGate } from "./modes.js";
import {
  PERMISSION_TIMEOUT_MS,
  type PermissionAnswer,
  type PermissionBroker,
  type PermissionProfile,
  permissionNeed,
} from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { redactedPreview } from "./redact.js";
import {
  argumentsStage,
  authorityStage,
  modeStage,
  planStage,
  resolveStage,
  staticAccesses,
} from "./stages.js";
import type { OperatingMode, ToolContext, ToolProgress, ToolResult } from "./tool.js";
import { fail } from "./tool.js";
import { endCallSpan, startCallSpan } from "./trace.js";

/** Options shared by every session of one kernel. */
export interface KernelOptions {
  readonly limits?: Partial<Limits>;
  readonly audit?: AuditSink;
  readonly events?: EventSink;
  /** Native events carry arguments and results only when this is on. Spans never do. */
  readonly captureContent?: boolean;
  readonly tracer?: Tracer;
  readonly broker?: PermissionBroker;
  /** How long a tool may take to settle after its signal aborts before the call is reported. */
  readonly cleanupGraceMs?: number;
  readonly now?: () => number;
}

export interface SessionOptions {
  readonly catalog: Catalog;
  /** Outermost first: distribution ceiling, deployment, CLI flags, session, child. */
  readonly layers?: readonly AuthorityLayer[];
  readonly sessionId?: string;
  readonly mode?: OperatingMode;
  readonly permission?: PermissionProfile;
  /** `sequential` (default) runs one call at a time; `parallel-reads` serializes only mutations. */
  readonly concurrency?: "sequential" | "parallel-reads";
  /** A child shares its parent's budget and narrows its layers. */
  readonly parent?: Session;
  /** Named in permission requests and audit records (a delegate or child). */
  readonly requester?: string;
  /**
   * With a parent: `shared` (default) makes allow-session grants one set for the parent and all
   * its delegates (seed 001, 10.2); `own` gives a supervised child grants of its own.
   */
  readonly grants?: "shared" | "own";
}

export interface CallRequest {
  /** Provider name or native name. */
  readonly tool: string;
  /** Parsed arguments, or the raw JSON text exactly as the model produced it. */
  readonly args: unknown;
  readonly callId?: string;
  readonly turnId?: string;
  readonly signal?: AbortSignal;
  readonly requester?: string;
  /** Receives the tool's progress (streamed output, MCP progress) as it happens. Contract: must not throw. */
  readonly onProgress?: (progress: ToolProgress) => void;
}

export interface CallOutcome {
  /** What the model receives: bounded after serialization. */
  readonly result: ToolResult;
  /** `result` serialized, within the result bound. */
  readonly serialized: string;
  readonly decision: Decision;
  readonly audit: AuditRecord;
}

/** A dry run's answer: what dispatch would do, running nothing. */
export interface DryRunDecision {
  readonly decision: "allow" | "ask" | "deny";
  readonly layer: string;
  readonly rule: string;
  readonly reason: string;
  readonly code?: string;
}

/** A tool as a session sees it: visible or excluded, and why. */
export interface ToolVisibility {
  readonly entry: CatalogEntry;
  readonly visible: boolean;
  readonly decision: Decision;
  readonly code?: string;
}

/** The kernel: opens sessions that dispatch calls through the governed pipeline. */
export interface Kernel {
  readonly options: KernelOptions;
  openSession(options: SessionOptions): Session;
}

export function createKernel(options: KernelOptions = {}): Kernel {
  return { options, openSession: (sessionOptions) => new Session(options, sessionOptions) };
}

const DEFAULT_CLEANUP_GRACE_MS = 30_000;
/** setTimeout fires at once for delays past 2^31-1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * One session: a frozen catalog seen through its authority layers, an operating mode, a
 * permission profile, session grants, a shared budget and the dispatch pipeline.
 */
export class Session {
  readonly id: string;
  readonly catalog: Catalog;
  #layers: readonly AuthorityLayer[];
  readonly budget: Budget;
  readonly requester: string | undefined;
  #mode: OperatingMode;
  #permission: PermissionProfile;
  #promptId: string = randomUUID();
  readonly #grants: Set<string>;
  readonly #state = new Map<string, unknown>();
  readonly #kernel: KernelOptions;
  readonly #now: () => number;
  readonly #concurrency: "sequential" | "parallel-reads";
  #callTail: Promise<void> = Promise.resolve();
  #mutationTail: Promise<void> = Promise.resolve();
  /** Calls in flight; cancelling the turn or passing the deadline aborts each of them. */
  readonly #inflight = new Set<CallAbort>();
  #deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  #sequence = 0;
  readonly #callPrefix = `call_${randomUUID().slice(0, 8)}_`;

  constructor(kernel: KernelOptions, options: SessionOptions) {
    this.#kernel = kernel;
    this.#now = kernel.now ?? Date.now;
    this.id = options.sessionId ?? randomUUID();
    this.catalog = options.catalog;
    const parentLayers = options.parent?.layers ?? [];
    this.#layers = Object.freeze([...parentLayers, ...(options.layers ?? [])]);
    this.budget = options.parent?.budget ?? new Budget(resolveLimits(kernel.limits), this.#now);
    this.#mode = options.mode ?? options.parent?.mode ?? "agent";
    this.#permission = options.permission ?? options.parent?.permission ?? { mode: "ask" };
    this.#concurrency = options.concurrency ?? "sequential";
    this.requester = options.requester;
    this.#grants = options.parent && options.grants !== "own" ? options.parent.#grants : new Set<string>();
    this.#armDeadline();
  }

  /** The authority layers, outermost first. */
  get layers(): readonly AuthorityLayer[] {
    return this.#layers;
  }

  /**
   * Adds an innermost layer for the rest of the session (an activated skill's allowed-tools, a
   * delegate's definition). Layers intersect, so this can only ever narrow what is allowed.
   */
  narrow(layer: AuthorityLayer): void {
    this.#layers = Object.freeze([...this.#layers, layer]);
  }

  get mode(): OperatingMode {
    return this.#mode;
  }
  get permission(): PermissionProfile {
    return this.#permission;
  }
  get promptId(): string {
    return this.#promptId;
  }

  /** Host-validated mode transition (EnterPlanMode and the like are validated by the host). */
  setMode(mode: OperatingMode): void {
    this.#mode = mode;
  }

  setPermission(profile: PermissionProfile): void {
    this.#permission = profile;
  }

  /** A new user prompt: per-prompt state (failed-edit counts, loaded deferred tools) starts over. */
  beginPrompt(): string {
    this.#promptId = randomUUID();
    return this.#promptId;
  }

  /** Cancels the running turn: running calls abort and outstanding permission requests deny. */
  cancelTurn(reason = "cancelled"): void {
    const error = new CancelledError(reason);
    for (const call of [...this.#inflight]) call.abort(error);
  }

  /** Aborts every call still running when the run deadline passes. */
  #armDeadline(): void {
    const delay = Math.min(this.budget.remainingMs(), MAX_TIMER_MS);
    this.#deadlineTimer = setTimeout(() => {
      const error = new DeadlineError();
      for (const call of [...this.#inflight]) call.abort(error);
    }, delay);
    this.#deadlineTimer.unref?.();
  }

  /** Every catalog tool with whether this session may see it, and the decision that says so. */
  visibility(): ToolVisibility[] {
    return this.catalog.entries.map((entry) => {
      const mode = modeGate(this.#mode, entry.definition.category);
      if (mode.verdict === "deny") {
        return {
          entry,
          visible: false,
          code: mode.code,
          decision: { verdict: "deny", layer: "mode", rule: mode.rule, reason: mode.reason },
        };
      }
      const decision = evaluateAuthority(this.layers, staticAccesses(entry));
      return decision.verdict === "allow"
        ? { entry, visible: true, decision }
        : { entry, visible: false, decision, code: ErrorCode.TOOL_DENIED };
    });
  }

  /** The tools a model may be offered in this session. */
  visibleTools(): CatalogEntry[] {
    return this.visibility()
      .filter((v) => v.visible)
      .map((v) => v.entry);
  }

  /** Runs every stage up to execution and reports the decision. Runs and audits nothing. */
  async dryRun(request: CallRequest): Promise<DryRunDecision> {
    const ctx = this.#context(request, request.callId ?? "dry-run", new CallAbort(), this.budget.deadline);
    const prepared = await this.#prepare(request, ctx);
    if ("final" in prepared) {
      const d = prepared.decision;
      return {
        decision: "deny",
        layer: d.layer,
        rule: d.rule,
        reason: d.reason,
        code: String(prepared.final.error.code),
      };
    }
    const { entry, accesses, decision } = prepared;
    const need = this.#permissionFor(entry, accesses);
    if (need.need === "deny") {
      return {
        decision: "deny",
        layer: "permission",
        rule: need.rule,
        reason: need.reason,
        code: ErrorCode.TOOL_DENIED,
      };
    }
    if (need.need === "ask" && !this.#grants.has(entry.name)) {
      return { decision: "ask", layer: "permission", rule: need.rule, reason: need.reason };
    }
    return { decision: "allow", layer: decision.layer, rule: decision.rule, reason: decision.reason };
  }

  /**
   * Audits a call the host answered without dispatching it (a batch rule, a tool the model may not
   * call yet), so that every call a model made has its record. Returns the result to give the model.
   */
  async recordRefusal(
    request: CallRequest,
    refusal: { code: string; message: string; rule: string },
  ): Promise<CallOutcome> {
    const started = this.#now();
    const callId = request.callId ?? `call_${++this.#sequence}_${randomUUID().slice(0, 8)}`;
    const ctx = this.#context(request, callId, new CallAbort(), this.budget.deadline);
    const facts = new CallFacts(started);
    facts.args = request.args;
    const entry = this.catalog.resolve(request.tool);
    const decision: Decision = {
      verdict: "deny",
      layer: "host",
      rule: refusal.rule,
      reason: refusal.message,
    };
    const result = fail(refusal.code, refusal.message, { layer: "host", rule: refusal.rule });
    const bounded = boundResult(result, this.budget.limits.toolResultBytes);
    const record = this.#auditRecord(request, ctx, entry, decision, bounded.result, facts);
    await this.#writeAudit(record);
    return { result: bounded.result, serialized: bounded.serialized, decision, audit: record };
  }

  /** Dispatches one call through the whole pipeline. Never throws for anything a model did. */
  call(request: CallRequest): Promise<CallOutcome> {
    if (this.#concurrency === "parallel-reads") return this.#dispatch(request);
    const run = this.#callTail.then(() => this.#dispatch(request));
    this.#callTail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  async #dispatch(request: CallRequest): Promise<CallOutcome> {
    const started = this.#now();
    const callId = request.callId ?? `${this.#callPrefix}${++this.#sequence}`;
    const deadline = this.budget.deadline;
    const abort = new CallAbort(request.signal);
    this.#inflight.add(abort);
    const ctx = this.#context(request, callId, abort, deadline);
    const facts = new CallFacts(started);
    const span = startCallSpan(this.#kernel.tracer, {
      tool: request.tool,
      sessionId: this.id,
      callId,
      mode: this.#mode,
    });

    const finish = async (
      entry: CatalogEntry | undefined,
      result: ToolResult,
      decision: Decision,
    ): Promise<CallOutcome> => {
      const bounded = boundSerializable(
        result,
        this.budget.limits.toolResultBytes,
        entry?.providerName ?? request.tool,
      );
      const record = this.#auditRecord(request, ctx, entry, decision, bounded.result, facts);
      await this.#writeAudit(record);
      if (decision.verdict === "deny") {
        this.#emit({
          type: "tool.denied",
          at: this.#now(),
          sessionId: this.id,
          callId,
          tool: entry?.name ?? request.tool,
          layer: decision.layer,
          rule: decision.rule,
          code: String(!bounded.result.ok ? bounded.result.error.code : ""),
        });
      }
      endCallSpan(span, {
        decision: decision.verdict,
        layer: decision.layer,
        rule: decision.rule,
        ok: bounded.result.ok,
        errorCode: bounded.result.ok ? undefined : String(bounded.result.error.code),
        prompted: facts.prompted,
        permissionWaitMs: facts.permissionWaitMs,
        durationMs: facts.durationMs,
        truncated: bounded.result.truncated !== undefined,
      });
      this.#inflight.delete(abort);
      abort.dispose();
      return { result: bounded.result, serialized: bounded.serialized, decision, audit: record };
    };

    if (abort.aborted) {
      return finish(
        undefined,
        cancelledResult(abort.reason),
        denyDecision("cancelled", "call cancelled before it started"),
      );
    }
    const prepared = await this.#prepare(request, ctx, facts);
    if ("final" in prepared) return finish(prepared.entry, prepared.final, prepared.decision);
    const { entry, accesses, args } = prepared;
    let { decision } = prepared;

    const permitted = await this.#askPermission(entry, accesses, args, ctx, facts);
    if (permitted) {
      decision = permitted.decision;
      if (permitted.final) return finish(entry, permitted.final, decision);
    }

    const budget = this.budget.takeToolCall();
    if (!budget.ok) {
      const d: Decision = { verdict: "deny", layer: "limits", rule: "limits.budget", reason: budget.reason };
      return finish(entry, fail(ErrorCode.BUDGET_EXHAUSTED, budget.reason), d);
    }

    const result = await this.#serializeMutation(entry, () => this.#execute(entry, args, ctx, abort, facts));
    return finish(entry, result, decision);
  }

  async #prepare(
    request: CallRequest,
    ctx: ToolContext,
    facts?: CallFacts,
  ): Promise<
    | { entry: CatalogEntry; args: unknown; accesses: readonly Access[]; decision: Decision }
    | { entry: CatalogEntry | undefined; final: ToolResult & { ok: false }; decision: Decision }
  > {
    const resolved = resolveStage(this.catalog, request.tool);
    if ("final" in resolved) return { entry: undefined, final: resolved.final, decision: resolved.decision };
    const entry = resolved.next;
    if (facts) facts.args = request.args;
    const moded = modeStage(this.#mode, entry);
    if ("final" in moded) return { entry, final: moded.final, decision: moded.decision };
    const toolAuth = authorityStage(this.layers, staticAccesses(entry), entry);
    if ("final" in toolAuth) return { entry, final: toolAuth.final, decision: toolAuth.decision };
    const parsed = argumentsStage(entry, request.args, this.budget.limits.toolArgumentBytes);
    if ("final" in parsed) return { entry, final: parsed.final, decision: parsed.decision };
    if (facts) facts.args = parsed.next;
    let planned: Awaited<ReturnType<typeof planStage>>;
    try {
      planned = await planStage(entry, parsed.next, ctx);
    } catch (error) {
      if (error instanceof PabloError && error.code === HostErrorCode.CONTAINMENT_VIOLATION) throw error;
      const d: Decision = {
        verdict: "deny",
        layer: "tool",
        rule: "plan.failed",
        reason: "the tool could not plan the call",
      };
      return {
        entry,
        final: fail(ErrorCode.TOOL_FAILED, `planning failed: ${messageOf(error)}`),
        decision: d,
      };
    }
    if ("final" in planned) return { entry, final: planned.final, decision: planned.decision };
    const accesses = planned.next;
    if (facts) facts.externalPath = accesses.some((a) => "root" in a && a.root === "external");
    const full = authorityStage(this.layers, [...staticAccesses(entry), ...accesses], accesses);
    if ("final" in full) return { entry, final: full.final, decision: full.decision };
    return {
      entry,
      args: parsed.next,
      accesses,
      decision: full.decision ?? toolAuth.decision ?? allowDefault(),
    };
  }

  #permissionFor(entry: CatalogEntry, accesses: readonly Access[]) {
    const d = entry.definition;
    return permissionNeed(this.#permission, {
      risk: d.risk,
      category: d.category,
      effects: d.effects,
      accesses,
    });
  }

  /** Returns undefined when no prompt was needed, else the decision and, on denial, the result. */
  async #askPermission(
    entry: CatalogEntry,
    accesses: readonly Access[],
    args: unknown,
    ctx: ToolContext,
    facts: CallFacts,
  ): Promise<{ decision: Decision; final?: ToolResult } | undefined> {
    const need = this.#permissionFor(entry, accesses);
    if (need.need === "none") return undefined;
    const deny = (rule: string, reason: string, answer: AuditRecord["permissionAnswer"]) => {
      facts.permissionAnswer = answer;
      const decision: Decision = { verdict: "deny", layer: "permission", rule, reason };
      const message =
        answer === "deny" ? "the user denied permission for this call" : `permission denied: ${reason}`;
      return { decision, final: fail(ErrorCode.TOOL_DENIED, message, { layer: "permission", rule }) };
    };
    if (need.need === "deny") return deny(need.rule, need.reason, undefined);
    if (this.#grants.has(entry.name)) {
      return {
        decision: {
          verdict: "allow",
          layer: "permission",
          rule: "permission.session-grant",
          reason: "allowed for this session",
        },
      };
    }
    const broker = this.#kernel.broker;
    if (!broker)
      return deny(need.rule, "no permission broker is available, so the request fails closed", "no-broker");

    const timeoutMs = this.#permission.timeoutMs ?? PERMISSION_TIMEOUT_MS;
    const waitStarted = this.#now();
    facts.prompted = true;
    this.#emit({
      type: "permission.requested",
      at: waitStarted,
      sessionId: this.id,
      callId: ctx.callId,
      tool: entry.name,
      rule: need.rule,
    });
    const answer = await askWithin(broker, timeoutMs, ctx.signal, {
      sessionId: this.id,
      callId: ctx.callId,
      tool: entry.name,
      providerName: entry.providerName,
      risk: entry.definition.risk,
      category: entry.definition.category,
      argsPreview: redactedPreview(args, 2048),
      reason: need.reason,
      requester: ctx.requester,
      deadline: waitStarted + timeoutMs,
    });
    facts.permissionWaitMs = this.#now() - waitStarted;
    this.#emit({
      type: "permission.answered",
      at: this.#now(),
      sessionId: this.id,
      callId: ctx.callId,
      tool: entry.name,
      answer,
      waitMs: facts.permissionWaitMs,
    });
    if (answer === "allow-once" || answer === "allow-session") {
      facts.permissionAnswer = answer;
      if (answer === "allow-session") this.#grants.add(entry.name);
      return {
        decision: {
          verdict: "allow",
          layer: "permission",
          rule: need.rule,
          reason: `user answered ${answer}`,
        },
      };
    }
    if (answer === "timeout") return deny(need.rule, `no answer within ${timeoutMs} ms`, "timeout");
    if (answer === "cancelled") return deny(need.rule, "the turn was cancelled", "cancelled");
    return deny(need.rule, "the user denied permission", "deny");
  }

  async #serializeMutation<T>(entry: CatalogEntry, run: () => Promise<T>): Promise<T> {
    if (!entry.definition.mutates) return run();
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

  async #execute(
    entry: CatalogEntry,
    args: unknown,
    ctx: ToolContext,
    abort: CallAbort,
    facts: CallFacts,
  ): Promise<ToolResult> {
    const bodyStarted = this.#now();
    this.#emit({
      type: "tool.started",
      at: bodyStarted,
      sessionId: this.id,
      callId: ctx.callId,
      tool: entry.name,
      ...(this.#kernel.captureContent ? { args: args as JsonValue } : {}),
    });
    let result: ToolResult;
    try {
      result = await settleWithin(
        entry.definition.execute(args as never, ctx),
        abort,
        this.#kernel.cleanupGraceMs ?? DEFAULT_CLEANUP_GRACE_MS,
      );
      result = checkResultShape(entry, result);
      if (result.auditNotes) {
        facts.notes = result.auditNotes;
        const { auditNotes: _notes, ...rest } = result;
        result = rest as ToolResult;
      }
    } catch (error) {
      if (error instanceof PabloError && error.code === HostErrorCode.CONTAINMENT_VIOLATION) throw error;
      result =
        error instanceof CleanupTimeout
          ? fail(
              ErrorCode.TOOL_CLEANUP_FAILED,
              "the tool did not settle after cancellation; its work may still be running",
            )
          : fail(ErrorCode.TOOL_FAILED, `${entry.providerName} failed: ${messageOf(error)}`);
    }
    facts.durationMs = this.#now() - bodyStarted;
    if (
      abort.aborted &&
      !result.committed &&
      !(result.ok === false && result.error.code === ErrorCode.TOOL_CLEANUP_FAILED)
    ) {
      result = cancelledResult(abort.reason, result);
    }
    this.#emit({
      type: "tool.finished",
      at: this.#now(),
      sessionId: this.id,
      callId: ctx.callId,
      tool: entry.name,
      ok: result.ok,
      ...(result.ok ? {} : { errorCode: String(result.error.code) }),
      durationMs: facts.durationMs,
      truncated: false,
      ...(this.#kernel.captureContent ? { result: result as unknown as JsonValue } : {}),
    });
    return result;
  }

  #context(request: CallRequest, callId: string, abort: CallAbort, deadline: number): ToolContext {
    const host = this.#contextHost;
    // A plain object of own properties, so tools may destructure or spread it; `signal` is a getter
    // so the call's AbortSignal is only created when something reads it.
    return {
      sessionId: this.id,
      turnId: request.turnId ?? this.#promptId,
      promptId: this.#promptId,
      callId,
      mode: this.#mode,
      get signal() {
        return abort.signal;
      },
      deadline,
      requester: request.requester ?? this.requester,
      progress: (event) => host.progress(request, callId, event),
      authorize: host.authorize,
      state: host.state as ToolContext["state"],
      narrow: host.narrow,
    };
  }

  /** What every call's context reaches back into; made once per session, not once per call. */
  readonly #contextHost: ContextHost = {
    progress: (request, callId, event) => {
      // The host that made the call gets the progress itself; native events get it only with
      // content capture on.
      try {
        request.onProgress?.(event);
      } catch {
        // Contract: a progress listener does not throw.
      }
      const bytes = JSON.stringify(event.data)?.length ?? 0;
      this.#emit({
        type: "tool.progress",
        at: this.#now(),
        sessionId: this.id,
        callId,
        tool: request.tool,
        kind: event.kind,
        bytes,
        ...(this.#kernel.captureContent ? { data: event.data } : {}),
      });
    },
    authorize: (accesses) => evaluateAuthority(this.layers, accesses),
    state: (key, init) => {
      if (!this.#state.has(key)) this.#state.set(key, init());
      return this.#state.get(key);
    },
    narrow: (layer) => this.narrow(defineLayer(layer)),
  };

  #auditRecord(
    request: CallRequest,
    ctx: ToolContext,
    entry: CatalogEntry | undefined,
    decision: Decision,
    result: ToolResult,
    facts: CallFacts,
  ): AuditRecord {
    const totalMs = this.#now() - facts.started;
    let argsText: string;
    try {
      argsText = typeof facts.args === "string" ? facts.args : canonicalJson(facts.args ?? null);
    } catch {
      argsText = "[unserializable]";
    }
    const notes = facts.notes;
    return {
      type: "tool.call",
      at: new Date(facts.started).toISOString(),
      sessionId: this.id,
      turnId: ctx.turnId,
      callId: ctx.callId,
      tool: entry?.name ?? request.tool,
      providerName: entry?.providerName ?? request.tool,
      ...(ctx.requester ? { requester: ctx.requester } : {}),
      argsHash: createHash("sha256").update(argsText).digest("hex"),
      argsPreview: redactedPreview(typeof facts.args === "string" ? safeParse(facts.args) : facts.args),
      mode: this.#mode,
      decision: decision.verdict,
      layer: decision.layer,
      rule: decision.rule,
      reason: decision.reason,
      prompted: facts.prompted,
      ...(facts.permissionAnswer ? { permissionAnswer: facts.permissionAnswer } : {}),
      externalPath: facts.externalPath,
      permissionWaitMs: facts.permissionWaitMs,
      durationMs: facts.durationMs,
      overheadMs: Math.max(0, totalMs - facts.permissionWaitMs - facts.durationMs),
      totalMs,
      ok: result.ok,
      ...(result.ok ? {} : { errorCode: String(result.error.code) }),
      ...(result.committed ? { committed: true } : {}),
      ...(result.truncated ? { truncated: true } : {}),
      ...(notes ? { notes } : {}),
    };
  }

  async #writeAudit(record: AuditRecord): Promise<void> {
    const sink = this.#kernel.audit;
    if (!sink) return;
    try {
      await sink.write(record);
    } catch {
      // Contract: sinks do not throw. One that does must not turn a finished call into a crash.
    }
  }

  #emit(event: KernelEvent): void {
    const sink = this.#kernel.events;
    if (!sink || !this.budget.takeEvent()) return;
    try {
      sink.emit(event);
    } catch {
      // Contract: sinks do not throw.
    }
  }
}

interface ContextHost {
  progress(request: CallRequest, callId: string, event: ToolProgress): void;
  authorize(accesses: readonly Access[]): Decision;
  state(key: string, init: () => unknown): unknown;
  narrow(layer: AuthorityLayer): void;
}

/** The reason a turn was cancelled. */
export class CancelledError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CancelledError";
  }
}

class DeadlineError extends Error {
  constructor() {
    super("the run deadline passed");
    this.name = "DeadlineError";
  }
}

class CleanupTimeout extends Error {}

class CallFacts {
  readonly started: number;
  args: unknown = undefined;
  prompted = false;
  permissionAnswer: AuditRecord["permissionAnswer"] = undefined;
  permissionWaitMs = 0;
  durationMs = 0;
  externalPath = false;
  notes: AuditRecord["notes"] = undefined;
  constructor(started: number) {
    this.started = started;
  }
}

/** The result of an aborted call; what the tool reported about its own state is kept as details. */
function cancelledResult(reason: unknown, reported?: ToolResult): ToolResult {
  const details = reported && !reported.ok ? reported.error.details : undefined;
  if (reason instanceof DeadlineError) {
    return fail(ErrorCode.TOOL_TIMEOUT, "the call passed the run deadline and was stopped", details);
  }
  return fail(ErrorCode.TOOL_CANCELLED, "the call was cancelled", details);
}

function denyDecision(rule: string, reason: string): Decision {
  return { verdict: "deny", layer: "session", rule, reason };
}

function allowDefault(): Decision {
  return { verdict: "allow", layer: "default", rule: "default", reason: "no rule restricts this call" };
}

/** Waits for the broker, turning a timeout, an abort or a rejection into an answer. */
async function askWithin(
  broker: PermissionBroker,
  timeoutMs: number,
  callSignal: AbortSignal,
  request: Parameters<PermissionBroker["request"]>[0],
): Promise<PermissionAnswer | "timeout" | "cancelled"> {
  const controller = new AbortController();
  const unlink = linkSignals(controller, [callSignal]);
  const signal = controller.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const cancelled = new Promise<"cancelled">((resolve) => {
    if (callSignal.aborted) resolve("cancelled");
    callSignal.addEventListener("abort", () => resolve("cancelled"), { once: true });
  });
  const answered = broker.request(request, signal).then(
    (answer) => (answer === "allow-once" || answer === "allow-session" ? answer : "deny"),
    () => "deny" as const,
  );
  try {
    return await Promise.race([answered, timeout, cancelled]);
  } finally {
    clearTimeout(timer);
    unlink();
    controller.abort();
  }
}

/**
 * Aborts `controller` when any source aborts, and returns a function that detaches the listeners.
 * Cheaper than `AbortSignal.any`, which keeps weak references alive across calls on Node 20.
 */
function linkSignals(controller: AbortController, sources: readonly (AbortSignal | undefined)[]): () => void {
  const detach: Array<() => void> = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      controller.abort(source.reason);
      continue;
    }
    const forward = () => controller.abort(source.reason);
    source.addEventListener("abort", forward, { once: true });
    detach.push(() => source.removeEventListener("abort", forward));
  }
  return () => {
    for (const d of detach) d();
  };
}

/** Resolves with the tool's result; once `signal` aborts, waits at most `graceMs` more. */
function settleWithin(work: Promise<ToolResult>, abort: CallAbort, graceMs: number): Promise<ToolResult> {
  return new Promise<ToolResult>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopListening = abort.onAbort(() => {
      timer = setTimeout(() => reject(new CleanupTimeout()), graceMs);
    });
    work.then(
      (value) => {
        clearTimeout(timer);
        stopListening();
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        stopListening();
        reject(error);
      },
    );
  });
}

/** Bounds a result; one that cannot be serialized (BigInt, cycles) becomes a contract violation. */
function boundSerializable(
  result: ToolResult,
  maxBytes: number,
  tool: string,
): ReturnType<typeof boundResult> {
  try {
    return boundResult(result, maxBytes);
  } catch {
    // BigInt values and cycles cannot reach a model; they must not crash the host either.
    return boundResult(
      fail(ErrorCode.TOOL_CONTRACT_VIOLATION, `${tool} returned a result that is not JSON`),
      maxBytes,
    );
  }
}

function checkResultShape(entry: CatalogEntry, result: ToolResult): ToolResult {
  const shaped =
    result !== null &&
    typeof result === "object" &&
    (result.ok === true || (result.ok === false && typeof result.error?.code === "string"));
  if (!shaped) {
    return fail(ErrorCode.TOOL_CONTRACT_VIOLATION, `${entry.providerName} returned a malformed result`);
  }
  if (result.ok && entry.outputValidator && !entry.outputValidator.check(result.data)) {
    const issues = entry.outputValidator.issues(result.data, 5);
    return fail(
      ErrorCode.TOOL_CONTRACT_VIOLATION,
      `${entry.providerName} returned output that does not match its output schema`,
      {
        issues,
      },
    );
  }
  return result;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text.slice(0, 512);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
