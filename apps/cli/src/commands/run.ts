import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import {
  Agent,
  type AgentDeploymentOptions,
  type AgentRunResult,
  createModel,
  findAgentProvider,
  type Model,
  ModelErrorCode,
  type QuestionPort,
  type RecordingModel,
  RunRenderer,
  recordingModel,
} from "@pablo/agent";
import { scratchNotice } from "@pablo/fs";
import { formatSkillContext } from "@pablo/skills";
import { acpChildHost } from "../acp/children.js";
import type { TaskEnvironment } from "../distribution.js";
import { CliErrorCode } from "../error-codes.js";
import { Exit } from "../exit-codes.js";
import type { Io } from "../output.js";
import { exportChanges, sandboxChanges } from "../sandbox.js";

export interface RunCommandOptions {
  readonly prompt: string;
  /** `--model PROVIDER:NAME`; else `[options.agent] model`; else `PABLO_MODEL`. */
  readonly model: string | undefined;
  readonly json: boolean;
  /** `--record FILE`: write the model's responses as a replay transcript. */
  readonly record?: string;
  /** The sink `createRunSink` made and the task's kernel emits to; made here when absent. */
  readonly sink?: RunRenderer;
  /** `--export-changes DIR`: write what a virtual sandbox changed into DIR. */
  readonly exportChanges?: string;
  /** Asks asktool's questions; the terminal by default when there is one. */
  readonly questions?: QuestionPort;
}

/** The event sink of a `pablo run`: pass it to `openTask` as `hooks.events`, then to `runCommand`. */
export function createRunSink(io: Io, options: { readonly json: boolean }): RunRenderer {
  return new RunRenderer({ stdout: io.stdout, stderr: io.stderr }, { json: options.json });
}

/**
 * `pablo run "TASK" [--model PROVIDER:NAME] [--mode agent|plan|goal] [--json]`: one agent task
 * over the governed catalog. Prints each tool call with its decision and duration, streamed shell
 * output and a summary (or JSON Lines with `--json`). Exit codes: 0 completed, 1 the task failed,
 * 2 usage or configuration (no model, bad model, missing key), 3 a plan or goal was not approved,
 * 130 cancelled.
 */
export async function runCommand(io: Io, task: TaskEnvironment, options: RunCommandOptions): Promise<number> {
  const sink = options.sink ?? createRunSink(io, { json: options.json });
  sink.addSecrets(task.credentials.resolvedValues());
  const agentOptions = task.deployment.options["agent"] as AgentDeploymentOptions | undefined;
  const spec = options.model ?? agentOptions?.model ?? io.env["PABLO_MODEL"];
  if (!spec) {
    io.stderr(
      `pablo: run needs a model: --model anthropic:NAME, openai-compatible:NAME or replay:FILE (or PABLO_MODEL) [${ModelErrorCode.MODEL_SPEC}]\n`,
    );
    return Exit.USAGE;
  }
  const created = createModel(spec, io.env, { resolver: task.credentials }, { cwd: io.cwd });
  if (!created.ok) {
    io.stderr(`pablo: ${created.message} [${created.code}]\n`);
    return Exit.USAGE;
  }
  sink.addSecrets(created.secrets);
  const recorder: RecordingModel | undefined = options.record ? recordingModel(created.model) : undefined;
  const model: Model = recorder ?? created.model;
  const provider = findAgentProvider(task.providers);
  const questions = options.questions ?? (io.isTTY ? terminalQuestions(io) : undefined);
  sink.note(`pablo run: ${model.id}, ${task.session.mode} mode, workspace ${task.workspace}`, {
    model: model.id,
    mode: task.session.mode,
    workspace: task.workspace,
  });
  // Children run as in-process ACP sessions, through the handlers `pablo acp` serves.
  const children = provider?.children
    ? acpChildHost({
        task,
        model,
        onEvent: (event) => sink.agent(event),
        broker: task.kernel.options.broker,
      })
    : undefined;
  const agent = new Agent({
    session: task.session,
    model,
    kernel: task.kernel,
    ...(provider ? { control: provider } : {}),
    ...(provider?.children && children ? { children: { ...provider.children, host: children } } : {}),
    ...(questions ? { questions } : {}),
    instructions: taskInstructions(task, provider ? undefined : agentOptions?.instructions),
    onEvent: (event) => sink.agent(event),
  });
  let result: AgentRunResult;
  try {
    result = await agent.prompt(options.prompt, { signal: io.signal });
  } finally {
    await children?.close();
  }
  // The summary (`run.finished` with --json) says the run is over: every call of it, the
  // children's too, is in the audit log by then, not only once the task closes.
  await task.session.flushAudit();
  const code = exitCodeOf(result, io.signal);
  sink.finish(result, model.id, code);
  if (recorder && options.record)
    writeFileSync(options.record, `${JSON.stringify(recorder.transcript(), null, 2)}\n`);
  reportSandboxChanges(io, task, options.exportChanges);
  return code;
}

/**
 * The host's part of the system text: the deployment's instructions (when no agent provider
 * brings them), where the session scratch directory is, and the skills the deployment activated.
 */
export function taskInstructions(task: TaskEnvironment, deploymentInstructions: string | undefined): string {
  return [
    deploymentInstructions ?? "",
    scratchNotice(task.scratchDir),
    formatSkillContext(task.skills?.activated ?? []),
  ]
    .filter((s) => s.trim() !== "")
    .join("\n\n");
}

/**
 * A virtual sandbox's changes exist only in memory: list them on stderr (`added|modified|deleted
 * PATH`) and, with `--export-changes DIR`, write them there. Nothing for a sandbox on disk.
 */
function reportSandboxChanges(io: Io, task: TaskEnvironment, exportDir: string | undefined): void {
  if (!task.sandbox.memory) {
    if (exportDir)
      io.stderr(`pablo: --export-changes needs [options.sandbox] kind = "virtual" [${CliErrorCode.USAGE}]\n`);
    return;
  }
  const changes = exportDir
    ? exportChanges(task.sandbox, resolve(io.cwd, exportDir))
    : sandboxChanges(task.sandbox);
  io.stderr(`sandbox changes${exportDir ? ` (written to ${exportDir})` : ""}:\n`);
  if (changes.length === 0) io.stderr("  none\n");
  for (const change of changes) io.stderr(`  ${change.kind} ${change.path}\n`);
}

/** The CLI contract's exit code for how a run ended. */
export function exitCodeOf(result: AgentRunResult, signal: AbortSignal): number {
  if (result.status === "cancelled" || signal.aborted) return Exit.CANCELLED;
  if (result.status === "completed") return Exit.OK;
  if (result.status === "not-approved") return Exit.DENIED;
  return Exit.FAILED;
}

/**
 * asktool on the terminal: each question on stderr (with numbered options), one answer line
 * each; an empty line skips. Closing the input or stopping the turn skips what is left.
 */
export function terminalQuestions(io: Io): QuestionPort {
  return {
    ask: (questions, { signal, requester }) =>
      new Promise((resolve) => {
        const answers: (string | undefined)[] = [];
        const rl = createInterface({ input: io.stdin, terminal: false });
        let done = false;
        const finish = () => {
          if (done) return;
          done = true;
          signal.removeEventListener("abort", finish);
          rl.close();
          resolve(questions.map((_q, i) => answers[i]));
        };
        const ask = () => {
          const q = questions[answers.length];
          if (!q) return finish();
          const options = (q.options ?? []).map((o, i) => `  ${i + 1}) ${o}`).join("\n");
          io.stderr(
            `\n? ${requester ? `[${requester}] ` : ""}${q.question}\n${options ? `${options}\n` : ""}> `,
          );
        };
        rl.on("line", (line) => {
          const text = line.trim();
          const options = questions[answers.length]?.options ?? [];
          const picked = /^\d+$/.test(text) ? options[Number(text) - 1] : undefined;
          answers.push(picked ?? (text === "" ? undefined : text));
          ask();
        });
        rl.on("close", finish);
        signal.addEventListener("abort", finish, { once: true });
        if (signal.aborted) finish();
        else ask();
      }),
  };
}
