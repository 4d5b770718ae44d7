/** What a stream printed, as kept within its bound. */
export interface CapturedText {
  /** The head and tail of the stream, decoded as UTF-8, with a marker where bytes were dropped. */
  readonly text: string;
  /** Every byte the stream carried. */
  readonly totalBytes: number;
  /** Bytes between the head and the tail that were not kept. */
  readonly droppedBytes: number;
}

/**
 * Keeps the first half and the last half of `limit` bytes of a stream and counts the rest, so its
 * memory stays constant whatever the command prints. Chunks are kept by reference, not copied:
 * the tail holds the fewest recent chunks that cover its half.
 */
export class OutputCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  readonly #head: Buffer[] = [];
  #headBytes = 0;
  readonly #tail: Buffer[] = [];
  #tailBytes = 0;
  #total = 0;

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Buffer): void {
    this.#total += chunk.length;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      const take = Math.min(rest.length, this.#headLimit - this.#headBytes);
      this.#head.push(rest.subarray(0, take));
      this.#headBytes += take;
      rest = rest.subarray(take);
      if (rest.length === 0) return;
    }
    this.#tail.push(rest);
    this.#tailBytes += rest.length;
    for (
      let first = this.#tail[0];
      first && this.#tailBytes - first.length >= this.#tailLimit;
      first = this.#tail[0]
    ) {
      this.#tail.shift();
      this.#tailBytes -= first.length;
    }
  }

  /** The kept bytes as text. Codepoints cut at the gap are dropped rather than garbled. */
  text(): CapturedText {
    const head = Buffer.concat(this.#head);
    const joined = Buffer.concat(this.#tail);
    const tail = joined.subarray(Math.max(0, joined.length - this.#tailLimit));
    const droppedBytes = this.#total - head.length - tail.length;
    if (droppedBytes === 0) {
      return { text: Buffer.concat([head, tail]).toString("utf8"), totalBytes: this.#total, droppedBytes };
    }
    const before = head.subarray(0, completeUtf8End(head)).toString("utf8");
    const after = tail.subarray(firstLeadByte(tail)).toString("utf8");
    const text = `${before}\n[… ${droppedBytes} bytes dropped …]\n${after}`;
    return { text, totalBytes: this.#total, droppedBytes };
  }
}

/** The length of `bytes` without a multi-byte sequence left incomplete at its end. */
export function completeUtf8End(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? bytes.length - back : bytes.length;
  }
  return bytes.length;
}

/** The offset of the first byte that does not continue a sequence begun before `bytes`. */
export function firstLeadByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < Math.min(3, bytes.length) && ((bytes[i] ?? 0) & 0xc0) === 0x80) i++;
  return i;
}
