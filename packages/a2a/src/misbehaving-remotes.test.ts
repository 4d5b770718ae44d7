import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, startRecorder, type TestServer } from "./test-support/remote-server.js";
import { loopbackRemote, remoteSession } from "./test-support/session.js";

type AgentServer = Awaited<ReturnType<typeof startAgentServer>>;
let agent: AgentServer;
let raw: TestServer;

/** A genuine 1.0 card for a hand-written RPC route on the raw server. */
function rawCard(path: string, streaming: boolean) {
  return {
    name: path,
    description: "",
    version: "1",
    supportedInterfaces: [{ url: `${raw.base}${path}`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
}

beforeAll(async () => {
  agent = await startAgentServer();
  raw = await startRecorder();
  for (const [path, streaming] of [
    ["/hang", false],
    ["/garbage", true],
    ["/big", false],
  ] as const)
    raw.app.get(`${path}/card.json`, (_req, res) => res.json(rawCard(path, streaming)));
  raw.app.post("/hang", () => undefined);
  raw.app.post("/garbage", (_req, res) => {
    res.setHeader("content-type", "text/event-stream");
    res.write("data: {not json at all\n\n");
    res.write("event: ???\ndata: \u0000\u0001\n\n");
    res.end();
  });
  raw.app.post("/big", (_req, res) => {
    res.setHeader("content-type", "application/json");
    // 50 MiB of one JSON answer, written lazily so the test server does not hold it either.
    res.write('{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"t","artifacts":[{"parts":[{"text":"');
    let left = 50;
    const chunk = "y".repeat(1024 * 1024);
    const pump = () => {
      while (left > 0) {
        left--;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
      res.end('"}]}]}}}');
    };
    res.on("close", () => {
      left = 0;
    });
    pump();
  });
});
afterAll(async () => {
  await agent.close();
  await raw.close();
});

const rawRemote = (path: string, extra = {}) => ({
  card_url: `${raw.base}${path}/card.json`,
  endpoint: `${raw.base}${path}`,
  allow_loopback_http: true,
  ...extra,
});

describe("remotes that misbehave end with a coded error and bounded memory", () => {
  it("a remote that hangs ends at the operation deadline", async () => {
    const { session } = await remoteSession({ h: rawRemote("/hang", { operation_timeout_ms: 400 }) });
    const started = Date.now();
    const { result } = await session.call({ tool: "a2a_h", args: { message: "echo: x" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "TOOL_TIMEOUT", details: { remote_outcome: "unknown" } },
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a stream that never ends stops at the event cap and cancels the remote task", async () => {
    const { session } = await remoteSession({ e: loopbackRemote(agent, { max_events: 50 }) });
    const before = agent.log.cancelled.length;
    const { result } = await session.call({ tool: "a2a_e", args: { message: "endless" } });
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "A2A_EVENT_LIMIT",
        details: { remote_outcome: "unknown", cancel: expect.stringMatching(/^sent/) },
      },
    });
    expect(agent.log.cancelled.length).toBe(before + 1);
  });

  it("a 50 MiB streamed artifact stops at the artifact cap, retaining nothing", async () => {
    const { session } = await remoteSession({
      g: loopbackRemote(agent, { max_artifact_bytes: 1024 * 1024 }),
    });
    const { result } = await session.call({ tool: "a2a_g", args: { message: "huge" } });
    expect(result).toMatchObject({ ok: false, error: { code: "A2A_ARTIFACT_TOO_LARGE" } });
    expect(JSON.stringify(result).length).toBeLessThan(4096);
    // Reading stopped at the cap: the remote was cancelled long before its 100th chunk (50 MiB).
    await new Promise((r) => setTimeout(r, 100));
    expect(agent.log.cancelled.length).toBeGreaterThan(0);
    expect(agent.log.chunks).toBeLessThan(20);
  });

  it("a 50 MiB answer stops at the event byte cap", async () => {
    const { session } = await remoteSession({ b: rawRemote("/big", { max_event_bytes: 1024 * 1024 }) });
    const { result } = await session.call({ tool: "a2a_b", args: { message: "echo: x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "A2A_EVENT_LIMIT" } });
  });

  it("malformed SSE is a protocol error", async () => {
    const { session } = await remoteSession({ m: rawRemote("/garbage") });
    const { result } = await session.call({ tool: "a2a_m", args: { message: "echo: x" } });
    expect(result).toMatchObject({ ok: false, error: { code: "A2A_PROTOCOL" } });
  });

  it("a remote that went away is a disconnect whose outcome is unknown", async () => {
    const gone = await startAgentServer();
    const { session } = await remoteSession({ d: loopbackRemote(gone) });
    await gone.close();
    const { result } = await session.call({ tool: "a2a_d", args: { message: "echo: x" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "A2A_DISCONNECTED", details: { remote_outcome: "unknown" } },
    });
  });
});
