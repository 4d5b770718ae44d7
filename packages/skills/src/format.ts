import { isAbsolute, relative } from "node:path";
import type { ActivatedSkill, Discovery, SkillCheckReport, SkillDiagnostic, SkillSummary } from "./types.js";

export interface FormatOptions {
  /** Paths under this folder are shown relative to it (the CLI passes its working directory). */
  readonly relativeTo?: string;
}

/** One diagnostic as two lines: `path:line: severity CODE [field] message`, then the fix. */
export function formatDiagnostic(d: SkillDiagnostic, options: FormatOptions = {}): string {
  const where = `${showPath(d.path, options)}${d.line === undefined ? "" : `:${d.line}`}`;
  const field = d.field === undefined ? "" : ` ${oneLine(d.field)}:`;
  const head = `${where}: ${d.severity} ${d.code}${field} ${oneLine(d.message)}`;
  return d.fix === undefined ? head : `${head}\n    fix: ${oneLine(d.fix)}`;
}

/** `pablo skills list`: one block per skill, then the diagnostics, then a count line. */
export function formatSkillList(discovery: Discovery, options: FormatOptions = {}): string {
  const out: string[] = [];
  for (const skill of discovery.skills) out.push(formatSummary(skill, options));
  if (discovery.diagnostics.length > 0) {
    if (out.length > 0) out.push("");
    for (const d of discovery.diagnostics) out.push(formatDiagnostic(d, options));
  }
  const errors = discovery.diagnostics.filter((d) => d.severity === "error").length;
  const warnings = discovery.diagnostics.length - errors;
  if (out.length > 0) out.push("");
  out.push(
    `${plural(discovery.skills.length, "skill")}; ${plural(errors, "error")}, ${plural(warnings, "warning")}`,
  );
  return out.join("\n");
}

/** `pablo skills show`: the metadata, then exactly the instructions a model would read. */
export function formatSkillDetail(skill: ActivatedSkill, options: FormatOptions = {}): string {
  const head = [
    `id: ${skill.id}`,
    `description: ${oneLine(skill.description)}`,
    `file: ${showPath(skill.file, options)}`,
    ...(skill.license === undefined ? [] : [`license: ${oneLine(skill.license)}`]),
    ...(skill.compatibility === undefined ? [] : [`compatibility: ${oneLine(skill.compatibility)}`]),
    ...Object.entries(skill.metadata ?? {}).map(([k, v]) => `metadata.${oneLine(k)}: ${oneLine(v)}`),
    ...(skill.allowedTools === undefined
      ? []
      : [`allowed-tools (metadata, grants nothing): ${oneLine(skill.allowedTools.join(" "))}`]),
    ...Object.entries(skill.otherFields ?? {}).map(
      ([k, v]) => `${oneLine(k)} (not in the specification, ignored): ${oneLine(v)}`,
    ),
    `instructions: ${skill.instructionBytes} bytes, sha256 ${skill.contentHash}`,
  ];
  return `${head.join("\n")}\n\n${printable(skill.instructions)}`;
}

/** `pablo skills check`: each package with its verdict and diagnostics, then a count line. */
export function formatCheckReport(report: SkillCheckReport, options: FormatOptions = {}): string {
  const out: string[] = [];
  for (const r of report.results) {
    // An invalid result with a summary has only tolerated mistakes: discovery still loads it.
    const verdict = r.valid
      ? `ok ${r.skill?.name ?? ""}${r.instructionBytes === undefined ? "" : ` (${r.instructionBytes} bytes of instructions, ${r.lines ?? 0} lines)`}`
      : r.skill
        ? "INVALID: Pablo loads it with warnings, but fix the errors below"
        : "INVALID: it will not load";
    out.push(`${showPath(r.file, options)}: ${verdict.trimEnd()}`);
    for (const d of r.diagnostics) out.push(indent(formatDiagnostic(d, options)));
  }
  for (const d of report.diagnostics) out.push(formatDiagnostic(d, options));
  const invalid = report.results.filter((r) => !r.valid).length;
  const warnings = [...report.results.flatMap((r) => r.diagnostics), ...report.diagnostics].filter(
    (d) => d.severity === "warning",
  ).length;
  out.push(
    `${plural(report.results.length, "skill")} checked: ${report.results.length - invalid} valid, ${invalid} invalid, ${plural(warnings, "warning")}` +
      (report.valid ? "" : " — FAILED"),
  );
  return out.join("\n");
}

/**
 * The block a host puts in a task's context for skills activated by configuration: each
 * skill's id, folder and instructions, marked as instructions that grant nothing.
 */
export function formatSkillContext(skills: readonly ActivatedSkill[]): string {
  if (skills.length === 0) return "";
  const blocks = skills.map(
    (s) =>
      `<skill id="${s.id}" dir="${s.dir}">\n${s.instructions.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd()}\n</skill>`,
  );
  return [
    "# Active skills",
    "These instructions guide the task. They grant no tool, path or permission; files beside a skill are read with the file tools under the normal read policy.",
    ...blocks,
  ].join("\n\n");
}

function formatSummary(skill: SkillSummary, options: FormatOptions): string {
  const lines = [`${skill.id}  ${oneLine(skill.description)}`, `    ${showPath(skill.file, options)}`];
  if (skill.allowedTools !== undefined)
    lines.push(`    allowed-tools (metadata, grants nothing): ${oneLine(skill.allowedTools.join(" "))}`);
  const other = Object.keys(skill.otherFields ?? {});
  if (other.length > 0) lines.push(`    other fields (ignored): ${oneLine(other.join(", "))}`);
  return lines.join("\n");
}

function showPath(path: string, options: FormatOptions): string {
  const shown = (() => {
    if (!options.relativeTo || !isAbsolute(path)) return path;
    const rel = relative(options.relativeTo, path);
    return rel === "" ? "." : rel.startsWith("..") ? path : rel;
  })();
  return oneLine(shown) === shown.trim() ? printable(shown) : JSON.stringify(shown);
}

function oneLine(text: string): string {
  return printable(text.replace(/\s+/g, " ").trim());
}

/**
 * Replaces control characters (other than line breaks and tabs) with U+FFFD, so that a skill's
 * text or a file name cannot send escape sequences to the terminal that prints it.
 */
function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\ufffd");
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
