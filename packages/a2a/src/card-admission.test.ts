import { defineLayer } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openA2aRemotes } from "./remotes.js";
import { startAgentServer, startRecorder, type TestServer } from "./test-support/remote-server.js";
import { credentialsOf, loopbackRemote } from "./test-support/session.js";

type AgentServer = Awaited<ReturnType<typeof startAgentServer>>;
let agent: AgentServer;
let other: TestServer;

beforeAll(async () => {
  agent = await startAgentServer();
  other = await startRecorder();
  other.app.get("/moved.json", (_req, res) => res.redirect(302, `${agent.cardUrl}`));
  other.app.get("/big.json", (_req, res) => res.json({ name: "x", description: "y".repeat(600_000) }));
  other.app.get("/hang.json", () => undefined);
  other.app.get("/legacy.json", (_req, res) =>
    res.json({
      name: "legacy",
      description: "a 0.3 agent",
      url: agent.rpc,
      protocolVersion: "0.3.0",
      version: "1",
      capabilities: {},
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    }),
  );
});
afterAll(async () => {
  await agent.close();
  await other.close();
});

async function admit(
  remote: Parameters<typeof loopbackRemote>[1] & { card_url?: string; endpoint?: string },
) {
  const opened = await openA2aRemotes({
    remotes: { r: { ...loopbackRemote(agent), ...remote } },
    credentials: credentialsOf({}),
  });
  return { opened, diagnostic: opened.diagnostics[0] };
}

describe("Agent Card admission", () => {
  it("refuses a card that redirects, naming the target, and follows nothing", async () => {
    const before = agent.seen.length;
    const { opened, diagnostic } = await admit({ card_url: `${other.base}/moved.json` });
    expect(await opened.providers[0]?.tools()).toEqual([]);
    expect(diagnostic).toMatchObject({ code: "A2A_CARD_UNAVAILABLE" });
    expect(diagnostic?.message).toContain(`redirecting to ${agent.cardUrl}`);
    expect(agent.seen.length).toBe(before);
  });

  it("refuses a card whose interfaces do not list the endpoint, naming both URLs", async () => {
    const elsewhere = await startAgentServer({
      card: (card) => ({
        ...card,
        supportedInterfaces: [
          { url: "https://elsewhere.example/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        ],
      }),
    });
    try {
      const opened = await openA2aRemotes({
        remotes: { r: loopbackRemote(elsewhere) },
        credentials: credentialsOf({}),
      });
      expect(opened.diagnostics[0]?.code).toBe("A2A_CARD_ENDPOINT_MISMATCH");
      expect(opened.diagnostics[0]?.message).toContain(elsewhere.cardUrl);
      expect(opened.diagnostics[0]?.message).toContain(`configured endpoint ${elsewhere.rpc}`);
      expect(opened.diagnostics[0]?.message).toContain("https://elsewhere.example/rpc (JSONRPC 1.0)");
    } finally {
      await elsewhere.close();
    }
  });

  it("refuses an interface that matches the URL but speaks 0.3 or another binding", async () => {
    const old = await startAgentServer({
      card: (card) => ({
        ...card,
        supportedInterfaces: [
          { url: `${card.supportedInterfaces[0]?.url}`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
          {
            url: `${card.supportedInterfaces[0]?.url}`,
            protocolBinding: "HTTP+JSON",
            protocolVersion: "1.0",
          },
        ],
      }),
    });
    try {
      const opened = await openA2aRemotes({
        remotes: { r: loopbackRemote(old) },
        credentials: credentialsOf({}),
      });
      expect(opened.diagnostics[0]?.code).toBe("A2A_CARD_ENDPOINT_MISMATCH");
    } finally {
      await old.close();
    }
  });

  it("refuses a 0.3-only card as not A2A 1.0", async () => {
    const { diagnostic } = await admit({ card_url: `${other.base}/legacy.json` });
    expect(diagnostic).toMatchObject({ code: "A2A_CARD_INVALID" });
    expect(diagnostic?.message).toContain("0.3-style card (protocolVersion 0.3.0");
  });

  it("bounds the card in bytes and in time", async () => {
    const big = await admit({ card_url: `${other.base}/big.json`, max_card_bytes: 64 * 1024 });
    expect(big.diagnostic).toMatchObject({ code: "A2A_CARD_UNAVAILABLE" });
    expect(big.diagnostic?.message).toContain("larger than 65536 bytes");
    const started = Date.now();
    const slow = await admit({ card_url: `${other.base}/hang.json`, card_timeout_ms: 300 });
    expect(slow.diagnostic?.message).toContain("no complete answer within 300 ms");
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it("refuses plain http off loopback, and loopback http without the opt-in", async () => {
    const off = await admit({ card_url: "http://agent.example.com/card.json" });
    expect(off.diagnostic).toMatchObject({ code: "A2A_REMOTE_CONFIG" });
    expect(off.diagnostic?.message).toContain("plain http off loopback");
    const noOptIn = await admit({ allow_loopback_http: false });
    expect(noOptIn.diagnostic?.message).toContain("allow_loopback_http");
  });

  it("contacts nothing when the net dimension denies the card URL or the endpoint", async () => {
    const before = agent.seen.length;
    const locked = defineLayer({ id: "locked", net: { default: "deny" } });
    const opened = await openA2aRemotes({
      remotes: { r: loopbackRemote(agent) },
      credentials: credentialsOf({}),
      layers: [locked],
    });
    expect(opened.diagnostics[0]).toMatchObject({ code: "A2A_REMOTE_DENIED" });
    expect(opened.diagnostics[0]?.message).toContain("denied by locked/");
    expect(agent.seen.length).toBe(before);
  });

  it("refuses a non-canonical endpoint spelling with the kernel's code", async () => {
    const { diagnostic } = await admit({ endpoint: `${agent.rpc.replace("/rpc", "/%72pc")}` });
    expect(diagnostic).toMatchObject({ code: "A2A_REMOTE_CONFIG" });
    expect(diagnostic?.message).toContain("URL_NOT_CANONICAL");
  });
});
