import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { Role } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  freshHome,
  type Home,
  loopbackModel,
  PABLO_BIN,
  personEnv,
  runPablo,
  toolResultIn,
} from "./harness.js";

const TOKEN = `a2a-e2e-${randomBytes(12).toString("hex")}`;

/** Starts `pablo a2a serve --json` and resolves with the URLs it prints; stopped with SIGINT. */
async function startServe(home: Home, env: Record<string, string>) {
  const config = home.write(
    "server/deployment.toml",
    [
      "[credentials.serve-token]",
      'consumer = "a2a.serve"',
      'destination = "a2a.serve"',
      'sources = [{ kind = "environment", name = "PABLO_A2A_SERVE_TOKEN" }]',
      "",
      "[options.a2a.serve]",
      'name = "reviewer"',
      'description = "Reviews changes."',
      'bearer = "serve-token"',
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(
    process.execPath,
    [
      PABLO_BIN,
      "a2a",
      "serve",
      "--port",
      "0",
      "--json",
      "--config",
      config,
      "--model",
      "anthropic:claude-e2e",
    ],
    {
      cwd: home.dir("server-work"),
      env: personEnv(home, { ...env, PABLO_A2A_SERVE_TOKEN: TOKEN }),
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c.toString("utf8");
  });
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  onTestFinished(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  for (let i = 0; i < 400 && !stdout.includes("card_url"); i++) {
    if (child.exitCode !== null) throw new Error(`pablo a2a serve exited: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const urls = JSON.parse(stdout.split("\n")[0] ?? "{}") as { url: string; card_url: string };
  return { urls, exited, stop: () => child.kill("SIGINT"), output: () => stdout + stderr };
}

const userMessage = (text: string) => ({
  tenant: "",
  message: {
    messageId: `m-${randomBytes(4).toString("hex")}`,
    contextId: "",
    taskId: "",
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: "text" as const, value: text },
        metadata: undefined,
        filename: "",
        mediaType: "text/plain",
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

describe("two Pablo distributions over A2A on loopback", () => {
  it("pablo run delegates to pablo a2a serve and promotes the remote's artifact", async () => {
    const serverHome = freshHome();
    const served = await startServe(serverHome, (await loopbackModel([{ text: "Reviewed: ship it." }])).env);
    const home = freshHome();
    const client = home.write(
      "pablo/deployment.toml",
      [
        "[credentials.peer]",
        'consumer = "a2a.bearer"',
        'sources = [{ kind = "environment", name = "PEER_TOKEN" }]',
        "",
        "[options.a2a.remotes.peer]",
        `card_url = ${JSON.stringify(served.urls.card_url)}`,
        `endpoint = ${JSON.stringify(served.urls.url)}`,
        'bearer = "peer"',
        "allow_loopback_http = true",
        "",
      ].join("\n"),
    );
    const model = await loopbackModel([
      { toolCalls: [{ id: "s1", name: "ToolSearch", input: { query: "a2a_peer" } }] },
      { toolCalls: [{ id: "a1", name: "a2a_peer", input: { message: "review the change" } }] },
      { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "r1" } }] },
      { text: "The peer approved." },
    ]);
    const run = await runPablo(
      [
        "run",
        "delegate the review",
        "--config",
        client,
        "--permission",
        "auto",
        "--model",
        "anthropic:claude-e2e",
      ],
      { cwd: home.dir("project"), env: personEnv(home, { ...model.env, PEER_TOKEN: TOKEN }) },
    );
    expect(run.code, run.stderr).toBe(0);
    const receipt = toolResultIn(model.server.requests[2], "a1");
    expect(receipt).toMatchObject({
      ok: true,
      data: { state: "completed", artifact: { retained: "r1", media_type: "text/plain" } },
    });
    expect(JSON.stringify(receipt)).not.toContain("ship it");
    expect(toolResultIn(model.server.requests[3], "h1")).toMatchObject({
      ok: true,
      data: { source: "a2a/peer", content: "Reviewed: ship it." },
    });
    const everything = `${run.stdout}${run.stderr}${JSON.stringify(home.audit())}${JSON.stringify(serverHome.audit())}${served.output()}`;
    expect(everything).not.toContain(TOKEN);
    expect(home.audit().map((r) => r["tool"])).toContain("a2a/peer");
    served.stop();
    expect(await served.exited).toBe(0);
  });

  it("pablo a2a serve answers the SDK's own client and refuses one without the bearer", async () => {
    const home = freshHome();
    const served = await startServe(home, (await loopbackModel([{ text: "Hello from Pablo." }])).env);
    const withToken: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", `Bearer ${TOKEN}`);
      return fetch(input, { ...init, headers });
    };
    const good = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
    }).createFromUrl(served.urls.card_url, "");
    const answer = await good.sendMessage(userMessage("say hello"));
    expect(JSON.stringify(answer)).toContain("Hello from Pablo.");
    const anonymous = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      served.urls.card_url,
      "",
    );
    await expect(anonymous.sendMessage(userMessage("say hello"))).rejects.toThrow();
    served.stop();
    expect(await served.exited).toBe(0);
  });
});
