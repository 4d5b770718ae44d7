import { parseCommand, UsageError } from "../args.js";
import { openTask } from "../distribution.js";
import type { Io } from "../output.js";
import { auditReplayCommand, parseSince } from "./audit-replay.js";
import { auditStoreChoice } from "./audit-store.js";
import { auditVerifyCommand } from "./audit-verify.js";
import { auditViewCommand } from "./audit-view.js";

export const AUDIT_USAGE =
  "usage: pablo audit show|verify|replay|view (verify [--file F]; replay --policy F | --config F [--session ID] [--since T]; view [--session ID] [--port N] [--out FILE])";

/** `pablo audit verify|replay|view ...` (`show` stays in audit.ts). */
export async function auditCommand(argv: readonly string[], io: Io): Promise<number> {
  const parsed = parseCommand(argv, {
    file: { type: "string" },
    session: { type: "string" },
    since: { type: "string" },
    port: { type: "string" },
    out: { type: "string" },
  });
  const [sub, extra] = parsed.positionals;
  if (extra !== undefined) throw new UsageError(AUDIT_USAGE);
  const value = (name: string) => parsed.values[name] as string | undefined;
  const session = value("session");
  if (sub === "verify") {
    const store = auditStoreChoice(parsed.global, io, value("file"));
    return auditVerifyCommand(io, { store, json: parsed.global.json });
  }
  if (sub === "replay") {
    if (!parsed.global.policy && !parsed.global.config)
      throw new UsageError("pablo audit replay needs the new authority: --policy FILE or --config FILE");
    const since = value("since") === undefined ? undefined : parseSince(value("since") as string);
    if (value("since") !== undefined && since === undefined)
      throw new UsageError("--since expects an ISO time or a span such as 30m, 24h, 7d");
    const store = auditStoreChoice(parsed.global, io, value("file"));
    const task = await openTask(parsed.global, { env: io.env, cwd: io.cwd, signal: io.signal });
    try {
      return await auditReplayCommand(io, task, {
        store,
        json: parsed.global.json,
        ...(session ? { session } : {}),
        ...(since ? { since } : {}),
      });
    } finally {
      await task.close();
    }
  }
  if (sub === "view") {
    const port = value("port") === undefined ? undefined : Number(value("port"));
    if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
      throw new UsageError("--port expects a port number");
    const store = auditStoreChoice(parsed.global, io, value("file"));
    const out = value("out");
    return auditViewCommand(io, {
      store,
      ...(session ? { session } : {}),
      ...(port !== undefined ? { port } : {}),
      ...(out ? { out } : {}),
    });
  }
  throw new UsageError(AUDIT_USAGE);
}
