import { formatConfigError } from "@pablo/config";
import type { ConfigFailure } from "./distribution.js";

/** Where a command writes. Injected so tests and embedding hosts can capture it. */
export interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: NodeJS.ReadableStream;
  readonly isTTY: boolean;
  /** The error terminal's width now, when it is a terminal; cards fit their prompt to it. */
  readonly columns?: () => number | undefined;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
}

export function printJson(io: Io, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

export function printConfigFailure(io: Io, failure: ConfigFailure): void {
  for (const error of failure.errors) io.stderr(`pablo: ${formatConfigError(error)}\n`);
}

/** A fixed-width table for terminal output. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
