import { AdmissionFailure } from "./admission.js";
import { type ParsedCommand, parseCommand, UsageError } from "./args.js";
import { ConfigFailure } from "./config-failure.js";
import { CliErrorCode } from "./error-codes.js";
import { Exit } from "./exit-codes.js";
import { describeFault } from "./fault.js";
import type { Io } from "./output.js";
import { USAGE } from "./usage.js";

/**
 * The CLI's modules, each loaded when a command first needs it: `pablo --help` loads none, and
 * a command loads its own module and what that imports. In the bundle each is its own chunk.
 */
const load = {
  support: () => import("./command-support.js"),
  output: () => import("./output.js"),
  run: () => import("./commands/run.js"),
  tools: () => import("./commands/tools.js"),
  call: () => import("./commands/call.js"),
  policy: () => import("./commands/policy.js"),
  auditShow: () => import("./commands/audit.js"),
  audit: () => import("./commands/audit-commands.js"),
  review: () => import("./commands/review.js"),
  skills: () => import("./commands/skills.js"),
  mcp: () => import("./commands/mcp.js"),
  mcpAuth: () => import("./commands/mcp-auth.js"),
  actions: () => import("./commands/actions.js"),
  acp: () => import("./commands/acp.js"),
  a2a: () => import("./commands/a2a.js"),
  plugin: () => import("./commands/plugin.js"),
};

/** Runs one CLI invocation and returns its exit code. Never throws for user input. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case undefined:
      case "help":
      case "--help":
      case "-h":
        io.stdout(USAGE);
        return command === undefined ? Exit.USAGE : Exit.OK;
      case "run": {
        const parsed = parseCommand(rest, {
          model: { type: "string" },
          record: { type: "string" },
          seed: { type: "string" },
          "export-changes": { type: "string" },
        });
        const prompt = parsed.positionals.join(" ").trim();
        if (!prompt && !parsed.help)
          throw new UsageError(
            'usage: pablo run "TASK" [--model PROVIDER:NAME] [--allow-write] [--no-shell]',
          );
        const [{ withTask }, { createRunSink, runCommand }] = await Promise.all([load.support(), load.run()]);
        const sink = createRunSink(io, { json: parsed.global.json });
        return await withTask(
          io,
          parsed,
          (task) =>
            runCommand(io, task, {
              prompt,
              model: parsed.values["model"] as string | undefined,
              json: parsed.global.json,
              sink,
              ...(parsed.values["record"] ? { record: parsed.values["record"] as string } : {}),
              ...(parsed.values["export-changes"]
                ? { exportChanges: parsed.values["export-changes"] as string }
                : {}),
            }),
          { events: sink, ...(parsed.values["seed"] ? { seed: parsed.values["seed"] as string } : {}) },
        );
      }
      case "tools": {
        const parsed = parseCommand(rest, { explain: { type: "boolean" }, delegate: { type: "string" } });
        const delegate = parsed.values["delegate"] as string | undefined;
        const [{ withTask }, { delegateToolsCommand, toolsCommand }] = await Promise.all([
          load.support(),
          load.tools(),
        ]);
        if (delegate)
          return await withTask(io, parsed, (task) =>
            delegateToolsCommand(io, task, { name: delegate, json: parsed.global.json }),
          );
        return await withTask(io, parsed, (task) =>
          toolsCommand(io, task, { explain: parsed.values["explain"] === true, json: parsed.global.json }),
        );
      }
      case "call": {
        const parsed = parseCommand(rest, { args: { type: "string" }, "dry-run": { type: "boolean" } });
        const tool = parsed.positionals[0];
        if (!tool || parsed.positionals.length > 1)
          throw new UsageError("usage: pablo call TOOL --args JSON");
        const [{ withTask }, { callCommand, requireArgs }] = await Promise.all([load.support(), load.call()]);
        const args = requireArgs(parsed.values["args"]);
        return await withTask(io, parsed, (task) =>
          callCommand(io, task, {
            tool,
            args,
            dryRun: parsed.values["dry-run"] === true,
            json: parsed.global.json,
          }),
        );
      }
      case "policy": {
        const parsed = parseCommand(rest);
        if (parsed.positionals[0] !== "check") throw new UsageError("usage: pablo policy check [--json]");
        const [{ withTask }, { configuredLaunchers, policyCheckCommand }] = await Promise.all([
          load.support(),
          load.policy(),
        ]);
        return await withTask(io, parsed, (task) =>
          policyCheckCommand(io, task, { json: parsed.global.json, launchers: configuredLaunchers(task) }),
        );
      }
      case "audit": {
        if (rest[0] !== "show") return await (await load.audit()).auditCommand(rest, io);
        const parsed = parseCommand(rest, {
          file: { type: "string" },
          session: { type: "string" },
          last: { type: "string" },
        });
        if (parsed.positionals[0] !== "show")
          throw new UsageError("usage: pablo audit show [--file FILE] [--session ID] [--last N] [--json]");
        const last = parsed.values["last"] === undefined ? undefined : Number(parsed.values["last"]);
        if (last !== undefined && (!Number.isInteger(last) || last < 0))
          throw new UsageError("--last expects a whole number");
        const [{ configuredAuditPath }, { auditShowCommand }] = await Promise.all([
          load.support(),
          load.auditShow(),
        ]);
        return auditShowCommand(io, {
          file: (parsed.values["file"] as string | undefined) ?? configuredAuditPath(parsed.global, io),
          json: parsed.global.json,
          ...(parsed.values["session"] ? { session: parsed.values["session"] as string } : {}),
          ...(last !== undefined ? { last } : {}),
        });
      }
      case "review": {
        const parsed = parseCommand(rest);
        const [sub, id] = parsed.positionals;
        const [{ withTask }, { reviewListCommand, reviewRollbackCommand }] = await Promise.all([
          load.support(),
          load.review(),
        ]);
        if (sub === "list")
          return await withTask(io, parsed, (task) =>
            reviewListCommand(io, task, { json: parsed.global.json }),
          );
        if (sub === "rollback" && id)
          return await withTask(io, parsed, (task) =>
            reviewRollbackCommand(io, task, { id, json: parsed.global.json }),
          );
        throw new UsageError("usage: pablo review list | pablo review rollback ID");
      }
      case "skills": {
        const parsed = parseCommand(rest);
        const [sub, name, extra] = parsed.positionals;
        const [{ withTask }, { skillsCheckCommand, skillsListCommand, skillsShowCommand }] =
          await Promise.all([load.support(), load.skills()]);
        if (sub === "check" && name && !extra) {
          refuseConfig(parsed, "skills check");
          return await skillsCheckCommand(io, { dir: name, json: parsed.global.json });
        }
        if (sub === "list" && !name)
          return await withTask(io, parsed, (task) =>
            skillsListCommand(io, task, { json: parsed.global.json }),
          );
        if (sub === "show" && name && !extra)
          return await withTask(io, parsed, (task) =>
            skillsShowCommand(io, task, { name, json: parsed.global.json }),
          );
        throw new UsageError("usage: pablo skills list | pablo skills show NAME | pablo skills check DIR");
      }
      case "mcp": {
        const parsed = parseCommand(rest, { http: { type: "string" } });
        const [sub, name, extra] = parsed.positionals;
        if ((sub === "login" || sub === "logout") && name && !extra) {
          const auth = await load.mcpAuth();
          return sub === "login"
            ? await auth.mcpLoginCommand(io, parsed.global, { name })
            : auth.mcpLogoutCommand(io, parsed.global, { name });
        }
        if (parsed.positionals[0] !== "serve" || parsed.positionals.length > 1)
          throw new UsageError("usage: pablo mcp serve [--http PORT]");
        const http = parsed.values["http"] as string | undefined;
        const port = http === undefined ? undefined : Number(http);
        if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535))
          throw new UsageError("--http expects a port number");
        return await (await load.mcp()).mcpServeCommand(io, parsed.global, { port });
      }
      case "actions": {
        const parsed = parseCommand(rest, {
          key: { type: "string" },
          trusted: { type: "string", multiple: true },
        });
        const [sub, ...targets] = parsed.positionals;
        const json = parsed.global.json;
        const {
          actionsCheckCommand,
          actionsKeygenCommand,
          actionsListCommand,
          actionsSignCommand,
          actionsVerifyCommand,
        } = await load.actions();
        if (sub === "keygen" && targets.length === 1)
          return actionsKeygenCommand(io, { prefix: targets[0] as string, json });
        if (sub === "sign" && targets.length === 1) {
          const key = parsed.values["key"] as string | undefined;
          if (!key) throw new UsageError("pablo actions sign CATALOG needs --key FILE");
          return actionsSignCommand(io, { catalog: targets[0] as string, key, json });
        }
        if (sub === "verify" || sub === "list" || sub === "check") {
          const sources = (await load.support()).actionSources(parsed, targets, io);
          if (sub === "verify") return actionsVerifyCommand(io, sources);
          if (sub === "list") return actionsListCommand(io, sources);
          return await actionsCheckCommand(io, sources);
        }
        throw new UsageError(
          "usage: pablo actions keygen PREFIX | sign CATALOG --key FILE | verify|list|check [CATALOG... --trusted FILE]",
        );
      }
      case "acp": {
        const parsed = parseCommand(rest, { model: { type: "string" } });
        if (parsed.positionals.length > 0)
          throw new UsageError(
            "usage: pablo acp [--model PROVIDER:NAME] [--config FILE] [--bind NAME=DIR] [--permission MODE] [--allow-write]",
          );
        return await (await load.acp()).acpCommand(io, parsed);
      }
      case "a2a": {
        const parsed = parseCommand(rest, { port: { type: "string" }, model: { type: "string" } });
        if (parsed.positionals[0] !== "serve" || parsed.positionals.length > 1)
          throw new UsageError("usage: pablo a2a serve [--port PORT] [--model PROVIDER:NAME]");
        const port = Number(parsed.values["port"] ?? "0");
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new UsageError("--port expects a port number");
        return await (await load.a2a()).a2aServeCommand(io, parsed.global, {
          port,
          model: parsed.values["model"] as string | undefined,
          json: parsed.global.json,
        });
      }
      case "plugin": {
        const parsed = parseCommand(rest, { dir: { type: "string" }, out: { type: "string" } });
        const [sub, target, extra] = parsed.positionals;
        const json = parsed.global.json;
        refuseConfig(parsed, "plugin");
        const { pluginCheckCommand, pluginPackCommand, pluginScaffoldCommand } = await load.plugin();
        if (sub === "scaffold" && target && !extra)
          return await pluginScaffoldCommand(io, {
            name: target,
            dir: parsed.values["dir"] as string | undefined,
            json,
          });
        if (sub === "check" && target && !extra) return await pluginCheckCommand(io, { dir: target, json });
        if (sub === "pack" && target && !extra)
          return await pluginPackCommand(io, {
            dir: target,
            out: parsed.values["out"] as string | undefined,
            json,
          });
        throw new UsageError(
          "usage: pablo plugin scaffold NAME [--dir DIR] | pablo plugin check DIR | pablo plugin pack DIR [--out DIR]",
        );
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}; run pablo help`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`pablo: ${error.message.replace(/\s*\n\s*/g, " ")} [${CliErrorCode.USAGE}]\n`);
      return Exit.USAGE;
    }
    if (error instanceof ConfigFailure) {
      (await load.output()).printConfigFailure(io, error);
      return Exit.USAGE;
    }
    if (error instanceof AdmissionFailure) {
      io.stderr(`pablo: ${error.message} [${error.code}]\n`);
      return Exit.USAGE;
    }
    io.stderr(`pablo: ${describeFault(error)}\n`);
    return Exit.USAGE;
  }
}

/** A command that reads no configuration says so rather than ignoring `--config` or `--policy`. */
function refuseConfig(parsed: ParsedCommand, command: string): void {
  if (parsed.global.config || parsed.global.policy) {
    throw new UsageError(`pablo ${command} reads no configuration; drop --config and --policy`);
  }
}
