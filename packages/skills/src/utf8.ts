/**
 * The offset of the first byte that does not start a well-formed UTF-8 sequence (overlongs,
 * surrogates and code points past U+10FFFF included), or undefined when all of `bytes` is valid.
 */
export function firstInvalidUtf8(bytes: Uint8Array): number | undefined {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    const [length, min, max] =
      b >= 0xc2 && b <= 0xdf
        ? [2, 0x80, 0xbf]
        : b === 0xe0
          ? [3, 0xa0, 0xbf]
          : b === 0xed
            ? [3, 0x80, 0x9f]
            : b >= 0xe1 && b <= 0xef
              ? [3, 0x80, 0xbf]
              : b === 0xf0
                ? [4, 0x90, 0xbf]
                : b >= 0xf1 && b <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : b === 0xf4
                    ? [4, 0x80, 0x8f]
                    : [0, 0, 0];
    if (length === 0 || i + length > bytes.length) return i;
    const second = bytes[i + 1] as number;
    if (second < min || second > max) return i;
    for (let k = 2; k < length; k++) {
      const next = bytes[i + k] as number;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return undefined;
}

/** 1-based line of a byte offset. */
export function lineOfOffset(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < bytes.length; i++) if (bytes[i] === 0x0a) line++;
  return line;
}

/**
 * The length of the longest prefix of `bytes` that does not end inside a multi-byte sequence:
 * where a cut at a byte bound may fall without splitting a character. Malformed bytes are left
 * for a strict decoder to report.
 */
export function completeUtf8Prefix(bytes: Uint8Array): number {
  let start = bytes.length - 1;
  // Continuation bytes (10xxxxxx) belong to the sequence whose lead byte precedes them.
  while (start >= 0 && bytes.length - start < 4 && ((bytes[start] as number) & 0xc0) === 0x80) start--;
  if (start < 0) return bytes.length;
  const lead = bytes[start] as number;
  const length = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > bytes.length ? start : bytes.length;
}
