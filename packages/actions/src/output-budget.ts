import { utf8ByteLength } from "@pablo/kernel";

/** One output budget shared by every step of an action, in UTF-8 bytes of returned text. */
export class OutputBudget {
  #left: number;

  constructor(bytes: number) {
    this.#left = bytes;
  }

  /** The part of `text` that fits what is left, cut at a character boundary. */
  take(text: string): { text: string; truncated: boolean } {
    const size = utf8ByteLength(text);
    if (size <= this.#left) {
      this.#left -= size;
      return { text, truncated: false };
    }
    const bytes = Buffer.from(text, "utf8").subarray(0, this.#left);
    let kept = bytes.toString("utf8");
    // A cut inside a multi-byte character decodes to U+FFFD: drop it rather than return garbage.
    if (kept.endsWith("\uFFFD")) kept = kept.slice(0, -1);
    this.#left -= utf8ByteLength(kept);
    return { text: kept, truncated: true };
  }
}
