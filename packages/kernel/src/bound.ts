import { utf8ByteLength } from "./json.js";
import type { ToolResult } from "./tool.js";

/** The smallest bound the kernel accepts: room for the truncation envelope. */
export const MIN_RESULT_BOUND = 512;

/**
 * Bounds a result by the byte length of its JSON serialization, the form a model receives, so
 * escaping (a NUL becomes six bytes) cannot inflate it past the limit. A result over the bound
 * becomes a valid JSON object with `truncated` and a `preview` string holding as much of the
 * original serialization as fits; a failure keeps its code.
 */
export function boundResult(
  result: ToolResult,
  maxBytes: number,
): { result: ToolResult; serialized: string } {
  const bound = Math.max(maxBytes, MIN_RESULT_BOUND);
  const serialized = JSON.stringify(result);
  const size = utf8ByteLength(serialized);
  if (size <= bound) return { result, serialized };

  const truncated = { originalBytes: size, limitBytes: bound };
  const envelope: ToolResult = result.ok
    ? {
        ok: true as const,
        data: { preview: "" },
        truncated,
        ...(result.committed ? { committed: true } : {}),
      }
    : {
        ok: false as const,
        error: {
          code: result.error.code,
          message: clip(result.error.message, 1024),
          details: { preview: "" },
        },
        truncated,
        ...(result.committed ? { committed: true } : {}),
      };
  const overhead = utf8ByteLength(JSON.stringify(envelope));
  let preview = prefixFittingEscaped(serialized, bound - overhead);
  let bounded: ToolResult = withPreview(envelope, preview);
  let text = JSON.stringify(bounded);
  // The estimate is exact, but keep the invariant even if it were not.
  while (utf8ByteLength(text) > bound && preview.length > 0) {
    preview = preview.slice(0, Math.floor(preview.length / 2));
    bounded = withPreview(envelope, preview);
    text = JSON.stringify(bounded);
  }
  return { result: bounded, serialized: text };
}

function withPreview(envelope: ToolResult, preview: string): ToolResult {
  if (envelope.ok) return { ...envelope, data: { preview } };
  return { ...envelope, error: { ...envelope.error, details: { preview } } };
}

/**
 * The longest prefix of `text` whose JSON string escaping costs at most `budget` bytes, never
 * ending inside a surrogate pair.
 */
export function prefixFittingEscaped(text: string, budget: number): string {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const unit = text.charCodeAt(i);
    let cost: number;
    let width = 1;
    if (unit === 0x22 || unit === 0x5c) cost = 2;
    else if (unit < 0x20)
      cost = unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
    else if (unit < 0x80) cost = 1;
    else if (unit < 0x800) cost = 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cost = 4;
        width = 2;
      } else cost = 6;
    } else if (unit >= 0xdc00 && unit <= 0xdfff) cost = 6;
    else cost = 3;
    if (used + cost > budget) break;
    used += cost;
    i += width;
  }
  return text.slice(0, i);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
