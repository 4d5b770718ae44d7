import { client as acpClient, methods, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk";
import { describe, expect, it, onTestFinished } from "vitest";
import { createAcpServer } from "./server.js";

/** The server's handlers on an in-process connection; no session is ever opened. */
async function connected() {
  const server = createAcpServer({
    version: "0.0.0-test",
    open: () => Promise.reject(RequestError.internalError(undefined, "no sessions in this test")),
  });
  const connection = acpClient({ name: "test" }).connect(server.app);
  onTestFinished(async () => {
    connection.close();
    await server.close();
  });
  const init = await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: {},
  });
  return { agent: connection.agent, init };
}

describe("the ACP server's session methods", () => {
  it("advertise neither session/load nor session/list, and refuse both as unknown methods", async () => {
    const { agent, init } = await connected();
    expect(init.agentCapabilities?.loadSession).toBe(false);
    expect(init.agentCapabilities?.sessionCapabilities).toEqual({ close: {} });
    await expect(
      agent.request(methods.agent.session.load, { sessionId: "s", cwd: "/", mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32601 });
    await expect(agent.request(methods.agent.session.list, {})).rejects.toMatchObject({ code: -32601 });
  });
});
