import { Role } from "@a2a-js/sdk";
import { ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { afterEach, describe, expect, it } from "vitest";
import { credentialsOf, remoteSession } from "../test-support/session.js";
import { type ServedA2a, type ServedTask, serveA2a } from "./serve.js";

const TOKEN = "served-bearer-0123456789abcdef";
let served: ServedA2a | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A runner standing in for `pablo run`: answers, fails, or waits for cancellation. */
async function runner(task: ServedTask) {
  if (task.text === "wait") {
    await new Promise<void>((resolve) =>
      task.signal.addEventListener("abort", () => resolve(), { once: true }),
    );
    return { ok: false, text: "", reason: "cancelled" };
  }
  if (task.text === "fail") return { ok: false, text: "", reason: "the model gave up" };
  task.status("working on it");
  return { ok: true, text: `done: ${task.text}` };
}

function sdkClient(bearer?: string) {
  const authorizing: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    if (bearer) headers.set("authorization", `Bearer ${bearer}`);
    return fetch(input, { ...init, headers });
  };
  return new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: authorizing })] });
}

const message = (text: string) => ({
  tenant: "",
  message: {
    messageId: `m-${text}`,
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

describe("serveA2a, driven by the SDK's own client", () => {
  it("serves a 1.0 card on 127.0.0.1 with one JSON-RPC interface and no secrets", async () => {
    served = await serveA2a({
      name: "pablo",
      description: "A governed agent.",
      version: "0.1.0",
      port: 0,
      bearer: TOKEN,
      run: runner,
    });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/v1$/);
    const card = (await (await fetch(served.cardUrl)).json()) as {
      supportedInterfaces: unknown[];
      capabilities: { streaming: boolean };
    };
    expect(card.supportedInterfaces).toEqual([
      { url: served.url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
    ]);
    expect(card.capabilities.streaming).toBe(true);
    expect(JSON.stringify(card)).not.toContain(TOKEN);
  });

  it("streams working, one artifact and completed", async () => {
    served = await serveA2a({
      name: "pablo",
      description: "d",
      version: "0.1.0",
      port: 0,
      bearer: TOKEN,
      run: runner,
    });
    const client = await sdkClient(TOKEN).createFromUrl(served.cardUrl, "");
    const kinds: string[] = [];
    let artifact = "";
    for await (const event of client.sendMessageStream(message("review"))) {
      const payload = event.payload;
      kinds.push(payload?.$case ?? "?");
      if (payload?.$case === "artifactUpdate")
        artifact =
          payload.value.artifact?.parts
            .map((p) => (p.content?.$case === "text" ? p.content.value : ""))
            .join("") ?? "";
    }
    expect(kinds[0]).toBe("task");
    expect(kinds.filter((k) => k === "artifactUpdate")).toHaveLength(1);
    expect(artifact).toBe("done: review");
  });

  it("refuses calls without the deployment's bearer", async () => {
    served = await serveA2a({
      name: "pablo",
      description: "d",
      version: "0.1.0",
      port: 0,
      bearer: TOKEN,
      run: runner,
    });
    const client = await sdkClient("wrong-token-wrong-token").createFromUrl(served.cardUrl, "");
    await expect(client.sendMessage(message("hi"))).rejects.toThrow();
    const anonymous = await fetch(served.url, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(anonymous.status).toBe(401);
  });

  it("honours CancelTask: the runner's signal aborts and the task ends canceled", async () => {
    served = await serveA2a({ name: "pablo", description: "d", version: "0.1.0", port: 0, run: runner });
    const client = await sdkClient().createFromUrl(served.cardUrl, "");
    const stream = client.sendMessageStream(message("wait"));
    const first = await stream.next();
    const task = first.value?.payload;
    expect(task?.$case).toBe("task");
    const id = task?.$case === "task" ? task.value.id : "";
    const cancelled = await client.cancelTask({ tenant: "", id, metadata: undefined });
    expect(cancelled.status?.state).toBe(5);
    await stream.return(undefined);
  });

  it("one Pablo delegates to another: a remote tool against a served agent", async () => {
    served = await serveA2a({
      name: "pablo",
      description: "Reviews code.",
      version: "0.1.0",
      port: 0,
      bearer: TOKEN,
      run: runner,
    });
    const credentials = credentialsOf({
      peer: { consumer: "a2a.bearer", destination: served.url, value: TOKEN },
    });
    const { session } = await remoteSession(
      { peer: { card_url: served.cardUrl, endpoint: served.url, bearer: "peer", allow_loopback_http: true } },
      { credentials },
    );
    const ok = await session.call({ tool: "a2a_peer", args: { message: "check it" } });
    expect(ok.result).toMatchObject({
      ok: true,
      data: { state: "completed", artifact: { bytes: 14, media_type: "text/plain" } },
    });
    const failed = await session.call({ tool: "a2a_peer", args: { message: "fail" } });
    expect(failed.result).toMatchObject({
      ok: false,
      error: {
        code: "A2A_REMOTE_FAILED",
        details: { remote_message: "[remote agent says, unverified] the model gave up" },
      },
    });
  });
});
