/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, client mode) with the built
 * `pablo` binary as the client under test.
 *
 * How the suite's client mode works: `conformance client --scenario NAME --command CMD` starts the
 * scenario's test server on a random port, runs `CMD URL` (the URL appended as the last word, the
 * scenario in `MCP_CONFORMANCE_SCENARIO`, scenario data such as client credentials as JSON in
 * `MCP_CONFORMANCE_CONTEXT`), waits for it to exit, then judges what its server saw. It exits 1
 * when a check failed or warned, when the client timed out or exited non-zero.
 *
 * The command this driver gives it is a relay: a tiny Node script that hands the URL and context
 * back to the test (a file in a private directory) and waits until the test says it is done. So the
 * client side is ordinary TypeScript in the test process: write a deployment for the URL into a
 * fresh HOME, run `pablo` as many times as the scenario needs, with any extra setup before the
 * call, and the suite still gives its own verdict on all of it.
 *
 * Use from a test file:
 *
 * ```ts
 * const run = await runClientScenario("tools_call", async (client) => {
 *   client.deploy();                                  // [options.mcp.servers.conformance] for the URL
 *   await client.pablo(["tools", "--json"]);
 *   await client.pablo(["call", "mcp/conformance/add_numbers", "--args", '{"a":1,"b":2}', "--json"]);
 * });
 * expect(run.problems).toEqual([]);                  // FAILURE and WARNING checks, readably
 * expect(run.passed).toBe(true);                     // the suite's own exit status
 * ```
 *
 * For `auth/*` scenarios: pass server keys with `client.deploy({ keys: ['auth = "oauth"',
 * `client_id = "${client.target.context?.client_id}"`] })` (each a TOML line of the server's
 * table; `lines` adds whole sections such as `[credentials.X]`), run the login step with
 * `client.pablo(["mcp", "login", "conformance"], { env: { BROWSER: script } })` before the call,
 * and read the scenario's data from `client.target.context`. `client.pablo` adds `--config` (the
 * deployment) and `--permission auto` to every command but `mcp login`/`mcp logout`, and
 * `client.home` is the fresh HOME (state directory, audit records); `client.terminal(args)` runs a
 * command on a real terminal (tmux) where a card needs answering. A callback that throws, or a
 * step whose exit code is not the expected one (default 0), makes the relay exit 1, which the
 * suite counts as a failure; `run.client.error` says why.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { onTestFinished } from "vitest";
import { type Finished, freshHome, type Home, personEnv, runPablo, Terminal } from "./harness.js";

/** The suite's CLI entry, from the dev dependency (0.1.13, the last release for Node 20). */
export const CONFORMANCE_BIN = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist",
  "index.js",
);

/** The server name the driver's deployment gives the suite's test server. */
export const SERVER = "conformance";

/** Every client scenario of 0.1.13 that does not start with `auth/`, as `conformance list` prints them. */
export const NON_AUTH_CLIENT_SCENARIOS = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
] as const;

/** One check as the suite records it (`checks.json`). */
export interface ConformanceCheck {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  readonly errorMessage?: string;
  readonly details?: Record<string, unknown>;
}

/** What the suite's server gave the client. */
export interface ScenarioTarget {
  readonly scenario: string;
  readonly url: string;
  /** `MCP_CONFORMANCE_CONTEXT`, parsed, when the scenario has data for the client. */
  readonly context: Record<string, unknown> | undefined;
}

export interface DeployOptions {
  /** Extra TOML lines inside `[options.mcp.servers.conformance]` (`auth = "oauth"`, ...). */
  readonly keys?: readonly string[];
  /** Extra TOML lines after the server's table (`[credentials.X]`, `[options.permission]`, ...). */
  readonly lines?: readonly string[];
}

export interface StepOptions {
  /** Extra environment for this command only (`BROWSER`, a credential variable...). */
  readonly env?: Record<string, string>;
  /** The exit code the step must end with; anything else fails the client. Default 0. */
  readonly expectCode?: number | "any";
  readonly timeoutMs?: number;
}

/** The client side of one scenario run, handed to the test's callback. */
export interface ConformanceClient {
  readonly target: ScenarioTarget;
  readonly home: Home;
  readonly workspace: string;
  /** The deployment file `pablo` is given; written by `deploy`. */
  readonly config: string;
  /** Writes the deployment: the suite's URL as an `http` server with loopback http allowed. */
  deploy(options?: DeployOptions): string;
  /** Runs the built binary with the deployment; records the step. */
  pablo(args: readonly string[], options?: StepOptions): Promise<Finished>;
  /** Starts the built binary with the deployment on a real terminal (tmux), for question cards. */
  terminal(args: readonly string[], options?: Pick<StepOptions, "env">): Terminal;
}

export interface StepRecord extends Finished {
  readonly args: readonly string[];
}

export interface ScenarioRun {
  /** The suite's verdict: its exit status was 0. */
  readonly passed: boolean;
  readonly checks: readonly ConformanceCheck[];
  /** FAILURE and WARNING checks as `id: message`, for a readable assertion. */
  readonly problems: readonly string[];
  /** The suite's own output (stdout and stderr). */
  readonly suiteOutput: string;
  readonly client: { readonly steps: readonly StepRecord[]; readonly error: string | undefined };
}

export interface RunOptions {
  /** The suite's client timeout (ms). Default 60000. */
  readonly timeoutMs?: number;
}

/**
 * Runs one client scenario of the suite with `drive` as the client and returns the suite's
 * verdict and checks. The HOME, the workspace and the suite's output directory are removed when
 * the test finishes.
 */
export async function runClientScenario(
  scenario: string,
  drive: (client: ConformanceClient) => Promise<void>,
  options: RunOptions = {},
): Promise<ScenarioRun> {
  const dir = mkdtempSync(join(tmpdir(), "pablo-conformance-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  // The suite splits its --command at spaces and runs it through a shell.
  for (const word of [process.execPath, dir]) {
    if (/[^A-Za-z0-9_./+-]/.test(word)) throw new Error(`path ${word} cannot be passed in --command`);
  }
  const relay = join(dir, "relay.mjs");
  writeFileSync(relay, RELAY);
  const timeoutMs = options.timeoutMs ?? 60_000;
  const suite = startSuite(scenario, `${process.execPath} ${relay} ${dir}`, dir, timeoutMs);

  const steps: StepRecord[] = [];
  let error: string | undefined;
  try {
    const target = await waitForTarget(dir, suite.exited, timeoutMs);
    await drive(clientFor(target, steps));
  } catch (thrown) {
    error = thrown instanceof Error ? thrown.message : String(thrown);
  }
  if (existsSync(join(dir, "target.json"))) writeFileSync(join(dir, "done"), error === undefined ? "0" : "1");
  const { code, output } = await suite.exited;
  const checks = readChecks(dir);
  return {
    passed: code === 0,
    checks,
    problems: checks
      .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
      .map((c) => `${c.id}: ${c.errorMessage ?? c.description}`),
    suiteOutput: output,
    client: { steps, error },
  };
}

function clientFor(target: ScenarioTarget, steps: StepRecord[]): ConformanceClient {
  const home = freshHome();
  const workspace = home.dir("project");
  const config = join(home.home, "pablo", "deployment.toml");
  return {
    target,
    home,
    workspace,
    config,
    deploy(options = {}) {
      return home.write(
        "pablo/deployment.toml",
        [
          `[options.mcp.servers.${SERVER}]`,
          'transport = "http"',
          `url = ${JSON.stringify(target.url)}`,
          "allow_loopback_http = true",
          "required = true",
          "deferred = false",
          "startup_timeout_ms = 15000",
          "operation_timeout_ms = 20000",
          ...(options.keys ?? []),
          "",
          ...(options.lines ?? []),
          "",
        ].join("\n"),
      );
    },
    terminal(args, step = {}) {
      return Terminal.open(withDeployment(args, config), {
        cwd: workspace,
        env: personEnv(home, step.env ?? {}),
      });
    },
    async pablo(args, step = {}) {
      const full = withDeployment(args, config);
      const finished = await runPablo(full, {
        cwd: workspace,
        env: personEnv(home, step.env ?? {}),
        timeoutMs: step.timeoutMs ?? 45_000,
      });
      steps.push({ args: full, ...finished });
      const expected = step.expectCode ?? 0;
      if (expected !== "any" && finished.code !== expected) {
        throw new Error(
          `pablo ${args.join(" ")} exited ${finished.code}, expected ${expected}\nstdout: ${finished.stdout}\nstderr: ${finished.stderr}`,
        );
      }
      return finished;
    },
  };
}

/** `--config` for every command; `--permission auto` for all but `mcp login` / `mcp logout`. */
function withDeployment(args: readonly string[], config: string): string[] {
  const isLogin = args[0] === "mcp" && (args[1] === "login" || args[1] === "logout");
  return [...args, "--config", config, ...(isLogin ? [] : ["--permission", "auto"])];
}

/**
 * The relay the suite runs as "the client": writes what it was given to `DIR/target.json` and
 * exits with the code the test writes to `DIR/done` (1 if the test never answers in 120 s).
 */
const RELAY = `import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
const [dir, url] = process.argv.slice(2);
const context = process.env.MCP_CONFORMANCE_CONTEXT;
writeFileSync(dir + "/target.tmp", JSON.stringify({
  scenario: process.env.MCP_CONFORMANCE_SCENARIO, url, context: context ? JSON.parse(context) : undefined,
}));
renameSync(dir + "/target.tmp", dir + "/target.json");
const started = Date.now();
const timer = setInterval(() => {
  if (existsSync(dir + "/done")) { clearInterval(timer); process.exit(Number(readFileSync(dir + "/done", "utf8")) || 0); }
  if (Date.now() - started > 120000) process.exit(1);
}, 20);
`;

interface Suite {
  readonly exited: Promise<{ code: number; output: string }>;
}

function startSuite(scenario: string, command: string, dir: string, timeoutMs: number): Suite {
  const child = spawn(
    process.execPath,
    [
      CONFORMANCE_BIN,
      "client",
      "--scenario",
      scenario,
      "--command",
      command,
      "--timeout",
      String(timeoutMs),
      "-o",
      join(dir, "results"),
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const exited = new Promise<{ code: number; output: string }>((resolve) => {
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 128 : -1), output }));
  });
  return { exited };
}

async function waitForTarget(
  dir: string,
  exited: Promise<{ code: number; output: string }>,
  timeoutMs: number,
): Promise<ScenarioTarget> {
  const file = join(dir, "target.json");
  let gone: { output: string } | undefined;
  void exited.then((result) => {
    gone = result;
  });
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (gone) throw new Error(`the suite exited before running the client:\n${gone.output}`);
    if (Date.now() > deadline) throw new Error("the suite never ran the client");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(readFileSync(file, "utf8")) as ScenarioTarget;
}

function readChecks(dir: string): ConformanceCheck[] {
  const results = join(dir, "results");
  if (!existsSync(results)) return [];
  // One directory per run, named after the scenario (auth/* scenarios nest one level deeper).
  const found: ConformanceCheck[] = [];
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name === "checks.json")
        found.push(...(JSON.parse(readFileSync(full, "utf8")) as ConformanceCheck[]));
    }
  };
  visit(results);
  return found;
}
