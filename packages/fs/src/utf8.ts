import { isUtf8 } from "node:buffer";

export { codePointCount, isContinuation } from "./walk/lines.js";

/** True when the bytes are well-formed UTF-8 (no overlongs, surrogates or truncated sequences). */
export function isValidUtf8(bytes: Uint8Array): boolean {
  return isUtf8(bytes);
}

/** Index of the first byte that starts an ill-formed sequence, or -1 when the bytes are valid. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const need =
      b < 0x80
        ? 0
        : b >= 0xc2 && b <= 0xdf
          ? 1
          : b >= 0xe0 && b <= 0xef
            ? 2
            : b >= 0xf0 && b <= 0xf4
              ? 3
              : -1;
    if (need < 0) return i;
    if (need > 0 && !isUtf8(bytes.subarray(i, i + need + 1))) return i;
    i += need + 1;
  }
  return -1;
}
