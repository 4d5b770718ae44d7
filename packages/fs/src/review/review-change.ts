import { structuredPatch } from "diff";
import Type, { type Static } from "typebox";
import { isValidUtf8 } from "../utf8.js";

export const DiffHunkSchema = Type.Object(
  {
    oldStart: Type.Integer({ description: "First line of the hunk in the previous content (1-based)." }),
    oldLines: Type.Integer({ description: "Lines of the previous content in the hunk." }),
    newStart: Type.Integer({ description: "First line of the hunk in the new content (1-based)." }),
    newLines: Type.Integer({ description: "Lines of the new content in the hunk." }),
    lines: Type.Array(Type.String(), {
      description:
        'Unified-diff lines: " " context, "-" removed, "+" added, "\\\\" no newline at end of file.',
    }),
  },
  { additionalProperties: false },
);
export type DiffHunk = Static<typeof DiffHunkSchema>;

/** Seed 001, 4c: the review evidence a successful workspace mutation returns and the host keeps. */
export const ReviewChangeSchema = Type.Object(
  {
    version: Type.Literal(1, { description: "Record format version." }),
    snapshotId: Type.String({ description: "ID to roll the change back with." }),
    messageId: Type.String({ description: "The tool call that made the change." }),
    path: Type.String({ description: "The changed file, relative to the workspace." }),
    operation: Type.Union([Type.Literal("write"), Type.Literal("edit"), Type.Literal("delete")], {
      description: "The tool operation that made the change.",
    }),
    status: Type.Union([Type.Literal("added"), Type.Literal("modified"), Type.Literal("deleted")], {
      description: "What happened to the file.",
    }),
    state: Type.Union([Type.Literal("active"), Type.Literal("rolledBack")], {
      description: "Whether the change has been rolled back.",
    }),
    additions: Type.Integer({ description: "Lines added." }),
    deletions: Type.Integer({ description: "Lines removed." }),
    hunks: Type.Array(DiffHunkSchema, { description: "Unified-diff hunks, bounded." }),
    binary: Type.Optional(Type.Boolean({ description: "The previous content was not text; no hunks." })),
    truncated: Type.Optional(Type.Boolean({ description: "Hunks were cut or omitted to stay bounded." })),
    reversible: Type.Boolean({
      description: "The previous bytes were captured, so rollback can restore them.",
    }),
  },
  { additionalProperties: false },
);
export type ReviewChange = Static<typeof ReviewChangeSchema>;

/** Largest previous+new text diffed line by line; bigger changes report counts only. */
const MAX_DIFF_BYTES = 1024 * 1024;
/** Most changed lines the diff explores before giving up (its cost grows with this times the size). */
const MAX_EDIT_LENGTH = 2000;
/** Most hunk lines kept in one record. */
const MAX_HUNK_LINES = 2000;

export interface ChangeInput {
  readonly snapshotId: string;
  readonly messageId: string;
  readonly path: string;
  readonly operation: "write" | "edit";
  /** Null: the file was created. Undefined: it existed but its bytes were too large to keep. */
  readonly before: Uint8Array | null | undefined;
  readonly after: Uint8Array;
  readonly reversible: boolean;
}

/** Builds the bounded review record of one change. */
export function describeChange(input: ChangeInput): ReviewChange {
  const base = {
    version: 1 as const,
    snapshotId: input.snapshotId,
    messageId: input.messageId,
    path: input.path,
    operation: input.operation,
    status: input.before === null ? ("added" as const) : ("modified" as const),
    state: "active" as const,
    reversible: input.reversible,
  };
  if (input.before === undefined) return { ...base, additions: 0, deletions: 0, hunks: [], truncated: true };
  const before = input.before ?? new Uint8Array(0);
  if (input.before !== null && !isText(before)) {
    return { ...base, additions: lineCount(input.after), deletions: 0, hunks: [], binary: true };
  }
  const oldText = Buffer.from(before).toString("utf8");
  const newText = Buffer.from(input.after).toString("utf8");
  // The changed region (outside the common first and last lines) decides whether a line diff is
  // affordable: its cost grows with the file's length times the number of changed lines.
  const region = trimmedCounts(oldText, newText);
  const patch =
    before.length + input.after.length <= MAX_DIFF_BYTES &&
    region.additions + region.deletions <= MAX_EDIT_LENGTH
      ? structuredPatch(input.path, input.path, oldText, newText, undefined, undefined, {
          context: 3,
          maxEditLength: MAX_EDIT_LENGTH,
          timeout: 250,
        })
      : undefined;
  if (!patch) return { ...base, ...region, hunks: [], truncated: true };
  let additions = 0;
  let deletions = 0;
  const hunks: DiffHunk[] = [];
  let kept = 0;
  let truncated = false;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) additions++;
      else if (line.startsWith("-")) deletions++;
    }
    if (kept + hunk.lines.length > MAX_HUNK_LINES) {
      truncated = true;
      continue;
    }
    kept += hunk.lines.length;
    hunks.push({
      oldStart: hunk.oldStart,
      oldLines: hunk.oldLines,
      newStart: hunk.newStart,
      newLines: hunk.newLines,
      lines: hunk.lines,
    });
  }
  return { ...base, additions, deletions, hunks, ...(truncated ? { truncated: true } : {}) };
}

function isText(bytes: Uint8Array): boolean {
  return !bytes.includes(0) && isValidUtf8(bytes);
}

function lineCount(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let count = 0;
  for (const byte of bytes) if (byte === 10) count++;
  return bytes[bytes.length - 1] === 10 ? count : count + 1;
}

/** Line counts outside the common prefix and suffix: exact for one changed region, an upper bound otherwise. */
function trimmedCounts(oldText: string, newText: string): { additions: number; deletions: number } {
  const a = oldText.split("\n");
  const b = newText.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail++;
  return { additions: b.length - head - tail, deletions: a.length - head - tail };
}
