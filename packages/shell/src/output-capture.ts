/** What a stream printed, as kept within its bound. */
export interface CapturedText {
  /** The head and tail of the stream, decoded as UTF-8, with a marker where bytes were dropped. */
  readonly text: string;
  /** Every byte the stream carried. */
  readonly totalBytes: number;
  /** Bytes between the head and the tail that were not kept. */
  readonly droppedBytes: number;
  /** Lines the whole stream carried: its line feeds, plus one for an unterminated last line. */
  readonly totalLines: number;
  /** When bytes were dropped: the kept tail alone, decoded, without the gap marker. */
  readonly tail?: string;
}

/**
 * Keeps the first half and the last half of `limit` bytes of a stream and counts the rest, so its
 * memory stays constant whatever the command prints. Chunks are copied (the caller may reuse its
 * buffer): the head into a fixed buffer, the tail into a ring.
 */
export class OutputCapture {
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head: Buffer | undefined;
  #headBytes = 0;
  #ring: Buffer | undefined;
  /** Where the next tail byte goes. */
  #ringAt = 0;
  #tailBytes = 0;
  #total = 0;
  #lineFeeds = 0;
  #lastByte = -1;

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#total += chunk.length;
    // Every line feed is counted, even in bytes that are never kept, so a truncation marker can
    // say how many lines the model did not see.
    this.#lineFeeds += countLineFeeds(chunk);
    this.#lastByte = chunk[chunk.length - 1] ?? -1;
    let rest = chunk;
    if (this.#headBytes < this.#headLimit) {
      this.#head ??= Buffer.allocUnsafe(this.#headLimit);
      const take = Math.min(rest.length, this.#headLimit - this.#headBytes);
      this.#head.set(rest.subarray(0, take), this.#headBytes);
      this.#headBytes += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0 || this.#tailLimit === 0) return;
    this.#ring ??= Buffer.allocUnsafe(this.#tailLimit);
    // Only the last ring-full of a large chunk can survive.
    if (rest.length > this.#tailLimit) rest = rest.subarray(rest.length - this.#tailLimit);
    const first = Math.min(rest.length, this.#tailLimit - this.#ringAt);
    this.#ring.set(rest.subarray(0, first), this.#ringAt);
    this.#ring.set(rest.subarray(first), 0);
    this.#ringAt = (this.#ringAt + rest.length) % this.#tailLimit;
    this.#tailBytes = Math.min(this.#tailLimit, this.#tailBytes + rest.length);
  }

  /** The kept bytes as text. Codepoints cut at the gap are dropped rather than garbled. */
  text(): CapturedText {
    const head = this.#head?.subarray(0, this.#headBytes) ?? Buffer.alloc(0);
    const tail = this.#tail();
    const droppedBytes = this.#total - head.length - tail.length;
    const totalLines = this.#lineFeeds + (this.#total > 0 && this.#lastByte !== 10 ? 1 : 0);
    const counts = { totalBytes: this.#total, droppedBytes, totalLines };
    if (droppedBytes === 0) return { text: Buffer.concat([head, tail]).toString("utf8"), ...counts };
    const before = head.subarray(0, completeUtf8End(head)).toString("utf8");
    const after = tail.subarray(firstLeadByte(tail)).toString("utf8");
    const text = `${before}\n[… ${droppedBytes} bytes dropped …]\n${after}`;
    return { text, tail: after, ...counts };
  }

  #tail(): Buffer {
    if (!this.#ring) return Buffer.alloc(0);
    if (this.#tailBytes < this.#tailLimit) return this.#ring.subarray(0, this.#tailBytes);
    return Buffer.concat([this.#ring.subarray(this.#ringAt), this.#ring.subarray(0, this.#ringAt)]);
  }
}

/**
 * Line feeds in `bytes`. indexOf is memchr, nearly free for sparse line feeds (a flood of zeros)
 * but a call per line; once lines turn out short, a plain loop is cheaper for the rest.
 */
export function countLineFeeds(bytes: Uint8Array): number {
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let count = 0;
  let at = buffer.indexOf(10);
  while (at >= 0) {
    count++;
    if (count === 64 && at < 64 * 32) {
      for (let i = at + 1; i < buffer.length; i++) if (buffer[i] === 10) count++;
      return count;
    }
    at = buffer.indexOf(10, at + 1);
  }
  return count;
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
