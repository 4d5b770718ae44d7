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

  constructor(limit: number) {
    this.#headLimit = Math.floor(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  get totalBytes(): number {
    return this.#total;
  }

  push(chunk: Uint8Array): void {
    this.#total += chunk.length;
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
    if (droppedBytes === 0) {
      return { text: Buffer.concat([head, tail]).toString("utf8"), totalBytes: this.#total, droppedBytes };
    }
    const before = head.subarray(0, completeUtf8End(head)).toString("utf8");
    const after = tail.subarray(firstLeadByte(tail)).toString("utf8");
    const text = `${before}\n[… ${droppedBytes} bytes dropped …]\n${after}`;
    return { text, totalBytes: this.#total, droppedBytes };
  }

  #tail(): Buffer {
    if (!this.#ring) return Buffer.alloc(0);
    if (this.#tailBytes < this.#tailLimit) return this.#ring.subarray(0, this.#tailBytes);
    return Buffer.concat([this.#ring.subarray(this.#ringAt), this.#ring.subarray(0, this.#ringAt)]);
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
