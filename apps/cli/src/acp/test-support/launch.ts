#!/usr/bin/env node
/**
 * Runs `acpCommand` as `pablo acp` would, for tests, until the lead wires `case "acp"` into
 * cli.ts. Built to `dist/acp/test-support/launch.js` (left out of the published files).
 */
import { parseCommand, UsageError } from "../../args.js";
import { acpCommand } from "../../commands/acp.js";
import { ConfigFailure } from "../../distribution.js";
import { describeFault } from "../../fault.js";
import { printConfigFailure } from "../../output.js";

// As main.ts does: whatever escapes ends as one coded line and exit 2.
const fault = (error: unknown) => {
  process.stderr.write(`pablo: ${describeFault(error)}\n`);
  process.exit(2);
};
process.on("uncaughtException", fault);
process.on("unhandledRejection", fault);
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
process.on("SIGTERM", () => controller.abort());
const io = {
  stdout: (text: string) => process.stdout.write(text),
  stderr: (text: string) => process.stderr.write(text),
  stdin: process.stdin,
  isTTY: false,
  cwd: process.cwd(),
  env: process.env,
  signal: controller.signal,
};
try {
  process.exitCode = await acpCommand(io, parseCommand(process.argv.slice(2), { model: { type: "string" } }));
} catch (error) {
  if (error instanceof ConfigFailure) printConfigFailure(io, error);
  else if (error instanceof UsageError) io.stderr(`pablo: ${error.message} [USAGE]\n`);
  else io.stderr(`pablo: ${describeFault(error)}\n`);
  process.exitCode = 2;
}
