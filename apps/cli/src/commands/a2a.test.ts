import { randomBytes } from "node:crypto";
import { Role } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { anthropicReply, type ScriptedTurn, startLoopbackServer } from "@pablo/agent/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import type { GlobalOptions } from "../args.js";
import { captureIo, pablo, useSandbox } from "../test-support/cli-harness.js";
import { a2aServeCommand } from "./a2a.js";

const message = (text: string) => ({
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

async function model(turns: ScriptedTurn[]) {
  const server = await startLoopbackServer((_request, index) =>
    anthropicReply(turns[index] ?? { text: "no more turns" }),
  );
  onTestFinished(() => server.close());
  return { server, env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-ant-test-a2a" } };
}

/** Starts `a2aServeCommand` in-process; resolves with its URLs once it prints them. */
async function serve(sandbox: ReturnType<typeof useSandbox>, config: string, env: Record<string, string>) {
  const controller = new AbortController();
  const { io, output } = captureIo(sandbox, { env, signal: controller.signal });
  const global: GlobalOptions = {
    config,
    binds: [],
    policy: undefined,
    workspace: undefined,
    permission: "auto",
    mode: undefined,
    allowWrite: false,
    noShell: false,
    noFilesystem: false,
    json: true,
  };
  const exit = a2aServeCommand(io, global, { port: 0, model: "anthropic:loopback", json: true });
  onTestFinished(async () => {
    controller.abort();
    await exit;
  });
  for (let i = 0; i < 200 && !output().stdout.includes("card_url"); i++)
    await new Promise((r) => setTimeout(r, 25));
  const urls = JSON.parse(output().stdout.split("\n")[0] ?? "{}") as { url: string; card_url: string };
  return { urls, stop: () => controller.abort(), exit, output };
}

describe("pablo a2a serve", () => {
  it("serves the deployment's agent to the SDK's own client: one artifact with the model's answer", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write("deployment.toml", "");
    const m = await model([{ text: "The answer is 42." }]);
    const served = await serve(sandbox, config, m.env);
    expect(served.urls.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/v1$/);
    const card = (await (await fetch(served.urls.card_url)).json()) as Record<string, unknown>;
    expect(JSON.stringify(card)).not.toContain(sandbox.root);
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      served.urls.card_url,
      "",
    );
    const texts: string[] = [];
    let final = "";
    for await (const event of client.sendMessageStream(message("What is the answer?"))) {
      const payload = event.payload;
      if (payload?.$case === "artifactUpdate")
        texts.push(
          ...(payload.value.artifact?.parts ?? []).map((p) =>
            p.content?.$case === "text" ? p.content.value : "",
          ),
        );
      if (payload?.$case === "statusUpdate") final = String(payload.value.status?.state);
    }
    expect(texts).toEqual(["The answer is 42."]);
    expect(final).toBe("3");
    // The model saw the caller's message as the task.
    expect(JSON.stringify(m.server.requests[0]?.body)).toContain("What is the answer?");
    served.stop();
    expect(await served.exit).toBe(0);
  });

  it("runs each task under the deployment's authority: a denied tool stays denied", async () => {
    const sandbox = useSandbox({ "secret.txt": "classified" });
    const config = sandbox.write(
      "deployment.toml",
      ["[options.policy.tool]", 'deny = [{ id = "no-read", match = "fs.read" }]', ""].join("\n"),
    );
    const m = await model([
      { toolCalls: [{ id: "r1", name: "fs_read", input: { path: `${sandbox.workspace}/secret.txt` } }] },
      { text: "I could not read it." },
    ]);
    const served = await serve(sandbox, config, m.env);
    const client = await new ClientFactory({ transports: [new JsonRpcTransportFactory()] }).createFromUrl(
      served.urls.card_url,
      "",
    );
    const result = await client.sendMessage(message("read secret.txt"));
    expect(JSON.stringify(result)).not.toContain("classified");
    expect(JSON.stringify(m.server.requests[1]?.body)).toMatch(/TOOL_DENIED|UNKNOWN_TOOL/);
  });

  it("one Pablo delegates to another over loopback and promotes the artifact", async () => {
    const sandbox = useSandbox();
    const serverConfig = sandbox.write("server.toml", "");
    const served = await serve(sandbox, serverConfig, (await model([{ text: "Reviewed: ship it." }])).env);
    const clientConfig = sandbox.write(
      "client.toml",
      [
        "[options.a2a.remotes.peer]",
        `card_url = ${JSON.stringify(served.urls.card_url)}`,
        `endpoint = ${JSON.stringify(served.urls.url)}`,
        "allow_loopback_http = true",
        "",
      ].join("\n"),
    );
    const tools = await pablo(["tools", "--json", "--config", clientConfig], sandbox);
    expect(tools.stdout).toContain("a2a/peer");
    const m = await model([
      { toolCalls: [{ id: "s1", name: "ToolSearch", input: { query: "a2a_peer" } }] },
      { toolCalls: [{ id: "a1", name: "a2a_peer", input: { message: "review the change" } }] },
      { toolCalls: [{ id: "h1", name: "child_handoff", input: { child: "r1" } }] },
      { text: "The peer approved." },
    ]);
    const run = await pablo(
      [
        "run",
        "delegate the review",
        "--config",
        clientConfig,
        "--permission",
        "auto",
        "--model",
        "anthropic:loopback",
        "--json",
      ],
      sandbox,
      m.env,
    );
    expect(run.code).toBe(0);
    const last = JSON.stringify(m.server.requests.at(-1)?.body);
    expect(last).toContain("Reviewed: ship it.");
    expect(last).toContain("a2a/peer");
  });
});
