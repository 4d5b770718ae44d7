import { randomUUID } from "node:crypto";
import { InflightCalls } from "./cancellation.js";
import type { Catalog } from "./catalog.js";
import type { KernelOptions, SessionOptions } from "./kernel.js";
import { Budget, resolveLimits } from "./limits.js";
import type { PermissionProfile } from "./permission.js";
import type { AuthorityLayer } from "./policy-schema.js";
import { SessionSerial } from "./serial.js";
import { Telemetry } from "./telemetry.js";
import type { OperatingMode } from "./tool.js";
import { type ContextHost, createContextHost, SessionState } from "./tool-context.js";

/**
 * What the dispatch stages read and change of one session. Internal: `Session` is its public
 * face, and a child session reaches its parent's core to share budget, layers and grants.
 */
export class SessionCore {
  readonly id: string;
  readonly catalog: Catalog;
  readonly options: KernelOptions;
  readonly now: () => number;
  readonly requester: string | undefined;
  /** Shared by a session and its children: counts and the deadline are spent together. */
  readonly budget: Budget;
  /** Tool names answered allow-session; one set for a parent and its delegates unless `grants: "own"`. */
  readonly grants: Set<string>;
  readonly state = new SessionState();
  readonly inflight: InflightCalls;
  readonly serial: SessionSerial;
  readonly telemetry: Telemetry;
  readonly contextHost: ContextHost = createContextHost(this);
  /** Outermost first; only ever extended by {@link SessionCore.narrow}. */
  layers: readonly AuthorityLayer[];
  mode: OperatingMode;
  permission: PermissionProfile;
  promptId: string = randomUUID();
  readonly #callPrefix = `call_${randomUUID().slice(0, 8)}_`;
  #sequence = 0;

  constructor(kernel: KernelOptions, options: SessionOptions, parent: SessionCore | undefined) {
    this.options = kernel;
    this.now = kernel.now ?? Date.now;
    this.id = options.sessionId ?? randomUUID();
    this.catalog = options.catalog;
    this.layers = Object.freeze([...(parent?.layers ?? []), ...(options.layers ?? [])]);
    this.budget = parent?.budget ?? new Budget(resolveLimits(kernel.limits), this.now);
    this.mode = options.mode ?? parent?.mode ?? "agent";
    this.permission = options.permission ?? parent?.permission ?? { mode: "ask" };
    this.serial = new SessionSerial(options.concurrency ?? "sequential");
    this.requester = options.requester;
    this.grants = parent && options.grants !== "own" ? parent.grants : new Set<string>();
    this.telemetry = new Telemetry(kernel, this.budget, this.now, this.id);
    this.inflight = new InflightCalls(this.budget);
  }

  /** Adds an innermost layer; layers intersect, so this only narrows. */
  narrow(layer: AuthorityLayer): void {
    this.layers = Object.freeze([...this.layers, layer]);
  }

  /** `call_<session>_<n>`: the one format of kernel-made call IDs, unique within a session. */
  nextCallId(): string {
    return `${this.#callPrefix}${++this.#sequence}`;
  }
}
