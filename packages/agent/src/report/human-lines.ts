import type { AgentEvent, AgentRunResult, CallRecord } from "../loop/events.js";

/** A one-line description of a loop event for people, or undefined for events that print nothing. */
export function eventLine(event: AgentEvent): string | undefined {
  const who = event.type !== "child.state" && event.agent !== "root" ? `[${event.agent}] ` : "";
  switch (event.type) {
    case "tool.requested":
      return `${who}▸ ${event.tool}`;
    case "tool.result":
      return `${who}  ${resultLine(event)}`;
    case "model.retry":
      return `${who}model ${event.status ? `HTTP ${event.status}` : "unavailable"}; retrying in ${seconds(event.delayMs)} (attempt ${event.attempt})`;
    case "model.warning":
      return `${who}model warning: ${event.message}`;
    case "mode.changed":
      return `${who}mode: ${event.from} → ${event.to}`;
    case "context.compacted":
      return `${who}context compacted (${event.reason}): ${event.messagesBefore} messages → ${event.messagesAfter}`;
    case "artifact.saved":
      return `${who}${event.kind} saved: ${event.path} (${event.bytes} bytes), ${event.approved ? "approved" : `not approved (${event.answer})`}`;
    case "child.state":
      return `child ${event.child}: ${event.state}${event.position !== undefined ? ` (queue position ${event.position})` : ""}`;
    case "prompt.finished":
      return event.agent === "root"
        ? undefined
        : `${who}finished: ${event.status}${event.reason ? ` (${event.reason})` : ""}`;
    default:
      return undefined;
  }
}

/**
 * `✓ 12 ms · allowed by deployment/docs.write`, `✗ REVISION_CONFLICT · 16 ms`, or
 * `✗ denied by cli-flags/cli.no-allow-write · TOOL_DENIED`. An allow that no rule made (the
 * layers' defaults) names no rule.
 */
export function resultLine(record: CallRecord): string {
  const asked = record.prompted ? `, asked ${seconds(record.permissionWaitMs)}` : "";
  const rule = `${record.layer}/${record.rule}`;
  if (record.decision === "deny") return `✗ denied by ${rule}${asked} · ${record.code ?? "DENIED"}`;
  const by =
    record.rule === "default" ? (asked ? ` · allowed${asked}` : "") : ` · allowed by ${rule}${asked}`;
  if (!record.ok)
    return `✗ ${record.code} · ${ms(record.durationMs)}${by}${record.committed ? " (committed)" : ""}`;
  return `✓ ${ms(record.durationMs)}${by}${record.review ? ` · review ${record.review.id}` : ""}`;
}

/** The final summary: status, calls, denials with rule IDs, changed files with review IDs, budgets. */
export function summaryLines(result: AgentRunResult, modelId: string): string[] {
  const b = result.budgets;
  const denied = new Set(result.denials.map((d) => d.callId));
  const failed = result.calls.filter((c) => !c.ok && !denied.has(c.callId)).length;
  const ok = result.calls.filter((c) => c.ok).length;
  const lines = [
    "── summary ──",
    `status: ${result.status}${result.reason ? ` (${result.reason})` : ""}`,
    `model: ${modelId}, ${result.turns} turns`,
    `calls: ${result.calls.length} (${ok} ok, ${failed} failed, ${result.denials.length} denied)`,
  ];
  if (result.denials.length > 0) {
    lines.push("denied:");
    for (const d of result.denials)
      lines.push(`  ${d.tool}  ${d.layer}/${d.rule}  ${d.code}${d.agent !== "root" ? `  (${d.agent})` : ""}`);
  }
  if (result.changes.length > 0) {
    lines.push("changed (roll back with: pablo review rollback ID):");
    for (const c of result.changes) lines.push(`  ${c.path}  review ${c.reviewId}`);
  }
  for (const a of result.artifacts)
    lines.push(`${a.kind}: ${a.path} ${a.approved ? "approved" : `not approved (${a.answer})`}`);
  if (result.status === "cancelled") {
    lines.push(
      `committed before the stop: ${result.committed.length === 0 ? "nothing" : result.committed.join(", ")}`,
    );
  }
  lines.push(
    `budgets: ${b.modelCalls} model calls, ${b.toolCalls} tool calls, ${kib(b.outputBytes)} output, largest request ${kib(b.largestRequestBytes)}, ${b.events} events${b.eventsDropped ? ` (${b.eventsDropped} dropped)` : ""}, ${seconds(b.elapsedMs)} elapsed, ${seconds(b.remainingMs)} left${b.compactions ? `, ${b.compactions} compactions` : ""}`,
  );
  return lines;
}

function ms(value: number): string {
  return value >= 1000 ? seconds(value) : `${Math.round(value)} ms`;
}

function seconds(value: number): string {
  return value >= 120_000 ? `${Math.round(value / 60_000)} min` : `${(value / 1000).toFixed(1)} s`;
}

function kib(bytes: number): string {
  return bytes >= 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${bytes} B`;
}
