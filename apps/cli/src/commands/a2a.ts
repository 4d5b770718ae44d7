import { type A2aOptions, SERVE_DESTINATION, type ServedAnswer, type ServedTask, serveA2a } from "@pablo/a2a";
import {
  Agent,
  type AgentDeploymentOptions,
  createModel,
  findAgentProvider,
  ModelErrorCode,
} from "@pablo/agent";
import { redactText } from "@pablo/kernel";
import type { GlobalOptions } from "../args.js";
import { openTask, type TaskEnvironment } from "../distribution.js";
import { Exit } from "../exit-codes.js";
import type { Io } from "../output.js";
import { taskInstructions } from "./run.js";

export interface A2aServeOptions {
  /** `--port N`; 0 (the default) picks a free port. The server listens on 127.0.0.1 only. */
  readonly port: number;
  /** `--model PROVIDER:NAME`; else `[options.agent] model`; else `PABLO_MODEL`. */
  readonly model: string | undefined;
  readonly json: boolean;
}

const DEFAULT_DESCRIPTION = "A Pablo agent: each task runs under its deployment's policy.";

/**
 * `pablo a2a serve [--port N] [--model PROVIDER:NAME] [--json]`: this deployment's agent as an
 * A2A 1.0 server on 127.0.0.1. Each incoming task opens a fresh task exactly as `pablo run`
 * does (the same configuration, layers and flags, never wider), runs the agent loop with no
 * permission broker (anything that would prompt is denied), and answers with one text artifact.
 * CancelTask stops that task's loop. With `[options.a2a.serve] bearer`, callers must send that
 * credential as a Bearer token. Prints the endpoint and card URL (JSON with `--json`) and serves
 * until interrupted. Exit codes: 0 after a clean stop, 2 for configuration or model problems.
 */
export async function a2aServeCommand(
  io: Io,
  global: GlobalOptions,
  options: A2aServeOptions,
): Promise<number> {
  const probe = await openTask(global, { cwd: io.cwd, env: io.env, signal: io.signal });
  let bearer: string | undefined;
  let card: { name: string; description: string };
  let spec: string | undefined;
  try {
    const section = probe.deployment.options["a2a"] as A2aOptions | undefined;
    const agentOptions = probe.deployment.options["agent"] as AgentDeploymentOptions | undefined;
    spec = options.model ?? agentOptions?.model ?? io.env["PABLO_MODEL"];
    card = {
      name: section?.serve?.name ?? "pablo",
      description: section?.serve?.description ?? DEFAULT_DESCRIPTION,
    };
    if (section?.serve?.bearer !== undefined) {
      const resolved = probe.credentials.resolve(section.serve.bearer, {
        consumer: "a2a.serve",
        destination: SERVE_DESTINATION,
      });
      if (!resolved.ok) {
        io.stderr(
          `pablo: options.a2a.serve.bearer: credential ${section.serve.bearer}: ${resolved.message} [${resolved.code}]\n`,
        );
        return Exit.USAGE;
      }
      bearer = resolved.value;
    }
  } finally {
    await probe.close();
  }
  if (!spec) {
    io.stderr(
      `pablo: a2a serve needs a model: --model PROVIDER:NAME (or [options.agent] model, or PABLO_MODEL) [${ModelErrorCode.MODEL_SPEC}]\n`,
    );
    return Exit.USAGE;
  }
  const model = spec;
  const served = await serveA2a({
    ...card,
    version: "0.1.0",
    port: options.port,
    ...(bearer !== undefined ? { bearer } : {}),
    run: (task) => runServedTask(io, global, model, task),
  });
  if (options.json) io.stdout(`${JSON.stringify({ url: served.url, card_url: served.cardUrl })}\n`);
  else io.stderr(`pablo: serving A2A at ${served.url} (card ${served.cardUrl})\n`);
  const stop = () => void served.close();
  io.signal.addEventListener("abort", stop, { once: true });
  if (io.signal.aborted) stop();
  await served.closed;
  io.signal.removeEventListener("abort", stop);
  return Exit.OK;
}

/** One incoming task: a fresh governed task and one agent run, its answer scrubbed of secrets. */
async function runServedTask(
  io: Io,
  global: GlobalOptions,
  spec: string,
  served: ServedTask,
): Promise<ServedAnswer> {
  let task: TaskEnvironment;
  try {
    task = await openTask(global, { cwd: io.cwd, env: io.env, signal: served.signal });
  } catch (error) {
    return { ok: false, text: "", reason: `the task could not be admitted: ${messageOf(error)}` };
  }
  try {
    const created = createModel(spec, io.env, { resolver: task.credentials }, { cwd: io.cwd });
    if (!created.ok) return { ok: false, text: "", reason: `${created.message} [${created.code}]` };
    const provider = findAgentProvider(task.providers);
    const agentOptions = task.deployment.options["agent"] as AgentDeploymentOptions | undefined;
    const agent = new Agent({
      session: task.session,
      model: created.model,
      kernel: task.kernel,
      ...(provider ? { control: provider } : {}),
      instructions: taskInstructions(task, provider ? undefined : agentOptions?.instructions),
    });
    served.status("running");
    const result = await agent.prompt(served.text, { signal: served.signal });
    const scrub = (text: string) =>
      scrubSecrets(text, [...task.credentials.resolvedValues(), ...created.secrets]);
    if (result.status === "completed") return { ok: true, text: scrub(result.text) };
    return { ok: false, text: "", reason: scrub(`the task ${result.status}: ${result.reason ?? ""}`.trim()) };
  } finally {
    await task.close();
  }
}

function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = redactText(text);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join("[REDACTED]");
  return out;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
