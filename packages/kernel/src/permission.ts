import type { Access } from "./access.js";
import type { Effect, Risk, ToolCategory } from "./tool.js";

/**
 * How admitted high-risk calls are approved. `read-only` is the profile of seed 003: reads and
 * inspection run, anything with another effect is denied unless that effect is granted.
 */
export type PermissionMode = "ask" | "accept-edits" | "auto" | "read-only";

export const PERMISSION_MODES: readonly PermissionMode[] = ["ask", "accept-edits", "auto", "read-only"];

export type PermissionAnswer = "allow-once" | "allow-session" | "deny";

/** What a broker shows the user. Never includes the permission mode: the model never learns it. */
export interface PermissionRequest {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly providerName: string;
  readonly risk: Risk;
  readonly category: ToolCategory;
  /** Redacted, bounded preview of the arguments. */
  readonly argsPreview: string;
  /** Why a prompt is needed, for example "high-risk process tool" or "path outside the roots". */
  readonly reason: string;
  /** The delegate or child asking, when one is. */
  readonly requester: string | undefined;
  readonly deadline: number;
}

/**
 * Implemented by the host: a terminal prompt, an editor card, an MCP elicitation. Contract: must
 * settle, and should settle promptly once `signal` aborts; the kernel treats no answer by the
 * deadline, a rejection and an abort all as deny.
 */
export interface PermissionBroker {
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}

/** The read-only profile's grants: effects allowed despite the profile. */
export interface PermissionProfile {
  readonly mode: PermissionMode;
  readonly grants?: readonly Effect[];
  /** Milliseconds to wait for an answer; 120 s by default. */
  readonly timeoutMs?: number;
}

export const PERMISSION_TIMEOUT_MS = 120_000;

const READ_ONLY_EFFECTS: ReadonlySet<string> = new Set(["fs.read", "ui"]);

/** What the permission stage does with a call that policy admitted. */
export type PermissionNeed =
  | { readonly need: "none"; readonly rule: string }
  | { readonly need: "ask"; readonly rule: string; readonly reason: string }
  | { readonly need: "deny"; readonly rule: string; readonly reason: string };

export interface PermissionSubject {
  readonly risk: Risk;
  readonly category: ToolCategory;
  readonly effects: readonly Effect[];
  readonly accesses: readonly Access[];
}

/**
 * Pure decision of seed 001 section 6: low risk runs; writes are confirmed under `ask` and
 * automatic under `accept-edits` and `auto`; processes, plugins and medium-risk tools are
 * confirmed except under `auto` (plugin tools whatever risk their manifest claims); an explicit outside path is confirmed except under `auto`;
 * writes that land only in the scratch root never prompt.
 */
export function permissionNeed(profile: PermissionProfile, subject: PermissionSubject): PermissionNeed {
  const { mode } = profile;
  if (mode === "read-only") {
    const granted = new Set(profile.grants ?? []);
    const blocked = subject.effects.filter((e) => !READ_ONLY_EFFECTS.has(e) && !granted.has(e));
    if (blocked.length > 0) {
      return {
        need: "deny",
        rule: "permission.read-only",
        reason: `the read-only profile denies ${blocked.join(", ")} (grant the effect explicitly to allow it)`,
      };
    }
    return { need: "none", rule: "permission.read-only" };
  }
  const external = subject.accesses.some((a) => "root" in a && a.root === "external");
  if (external && mode !== "auto") {
    return {
      need: "ask",
      rule: `permission.${mode}.external-path`,
      reason: "explicit path outside the session roots",
    };
  }
  const writes = subject.accesses.filter((a) => a.dimension === "fs.write");
  if (
    subject.category === "write" &&
    writes.length > 0 &&
    writes.every((a) => "root" in a && a.root === "scratch")
  ) {
    return { need: "none", rule: "permission.scratch" };
  }
  // Seed 001's matrix confirms plugin tools under ask and accept-edits whatever their manifest
  // says: a third party's own risk label is not the host's judgement.
  if (subject.risk === "low" && subject.category !== "plugin") {
    return { need: "none", rule: "permission.low-risk" };
  }
  if (mode === "auto") return { need: "none", rule: "permission.auto" };
  if (subject.category === "write" && subject.risk === "high" && mode === "accept-edits") {
    return { need: "none", rule: "permission.accept-edits" };
  }
  return {
    need: "ask",
    rule: `permission.${mode}.${subject.risk}`,
    reason: `${subject.risk}-risk ${subject.category} tool`,
  };
}
