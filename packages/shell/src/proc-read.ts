import { closeSync, openSync, readSync } from "node:fs";

/**
 * Reads a `/proc` file into one buffer this module keeps, and returns a view of it that is valid
 * only until the next call. readFileSync cost several times as much per file (an fstat, a fresh
 * 8 KiB chunk per read and a concat, since proc files report size 0), and a run reads a few of
 * them while the command starts. The buffer grows for a large file (an environ) and stays grown.
 * Throws what `openSync` and `readSync` throw.
 */
export function readProcBytes(path: string): Buffer {
  const fd = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const grown = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(grown);
        scratch = grown;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.subarray(0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** {@link readProcBytes} decoded as latin1 (the text of `/proc` files is ASCII, names aside). */
export function readProcText(path: string): string {
  return readProcBytes(path).toString("latin1");
}

let scratch = Buffer.allocUnsafe(4096);
