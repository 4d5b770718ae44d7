import {
  type AgentContext,
  agent as acpAgent,
  client as acpClient,
  type ClientCapabilities,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  methods,
  PROTOCOL_VERSION,
  RequestError,
} from "@agentclientprotocol/sdk";
import type { ElicitationRequest, PermissionBroker } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { acpElicit, canElicit } from "./elicitation.js";
import { createAcpServer } from "./server.js";

/** Every field kind the kernel knows, with the options a server may give each. */
const QUESTION: ElicitationRequest = {
  server: "records",
  message: "Which release?",
  fields: {
    name: {
      type: "string",
      title: "Name",
      description: "Your name",
      minLength: 1,
      maxLength: 40,
      default: "Ada",
    },
    email: { type: "string", format: "email" },
    count: { type: "integer", minimum: 1, maximum: 9, default: 3 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
    confirm: { type: "boolean", title: "Confirm", default: false },
    color: { type: "enum", options: ["red", "green"], default: "green" },
    pet: { type: "enum", options: ["p1", "p2"], optionTitles: ["Cats", "Dogs"] },
    tags: { type: "multiselect", options: ["a", "b"], minItems: 1, maxItems: 2, default: ["a"] },
    fish: { type: "multiselect", options: ["f1", "f2"], optionTitles: ["Tuna", "Cod"] },
  },
  required: ["name"],
  deadline: Date.now() + 60_000,
};

/**
 * An editor on an in-process ACP connection whose `elicitation/create` handler the test writes;
 * returns the agent side's context (what a session's broker sends on) and what the editor saw.
 */
async function editor(
  answer: (request: CreateElicitationRequest, signal: AbortSignal) => Promise<CreateElicitationResponse>,
) {
  let context: AgentContext | undefined;
  const app = acpAgent({ name: "agent" }).onRequest(methods.agent.initialize, ({ client }) => {
    context = client;
    return { protocolVersion: PROTOCOL_VERSION, agentCapabilities: {}, authMethods: [] };
  });
  const asked: CreateElicitationRequest[] = [];
  const withdrawn: CreateElicitationRequest[] = [];
  const connection = acpClient({ name: "editor" })
    .onRequest(methods.client.elicitation.create, ({ params, signal }) => {
      asked.push(params);
      signal.addEventListener("abort", () => withdrawn.push(params), { once: true });
      return answer(params, signal);
    })
    .connect(app);
  onTestFinished(() => connection.close());
  await connection.agent.request(methods.agent.initialize, {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { elicitation: { form: {} } },
  });
  if (!context) throw new Error("initialize did not run");
  const client = context;
  const turn = new AbortController();
  const elicit = acpElicit(() => ({
    client,
    sessionId: "s-1",
    elicitingCall: (server) => (server === "records" ? "call-7" : undefined),
    turn: turn.signal,
  }));
  return { elicit, asked, withdrawn, turn };
}

const never = (_request: CreateElicitationRequest, signal: AbortSignal) =>
  new Promise<CreateElicitationResponse>((resolve) =>
    signal.addEventListener("abort", () => resolve({ action: "cancel" }), { once: true }),
  );

describe("elicitation/create for a session's MCP server questions", () => {
  it("sends the question as a form-mode request: the session, the running call, a flat schema with every bound and default", async () => {
    const e = await editor(async () => ({ action: "decline" }));
    await e.elicit(QUESTION, new AbortController().signal);
    expect(e.asked).toEqual([
      {
        mode: "form",
        sessionId: "s-1",
        toolCallId: "call-7",
        message: "Which release?",
        requestedSchema: {
          type: "object",
          title: "Question from records",
          properties: {
            name: {
              type: "string",
              title: "Name",
              description: "Your name",
              minLength: 1,
              maxLength: 40,
              default: "Ada",
            },
            email: { type: "string", format: "email" },
            count: { type: "integer", minimum: 1, maximum: 9, default: 3 },
            ratio: { type: "number", minimum: 0, maximum: 1 },
            confirm: { type: "boolean", title: "Confirm", default: false },
            color: { type: "string", enum: ["red", "green"], default: "green" },
            pet: {
              type: "string",
              oneOf: [
                { const: "p1", title: "Cats" },
                { const: "p2", title: "Dogs" },
              ],
            },
            tags: {
              type: "array",
              items: { type: "string", enum: ["a", "b"] },
              minItems: 1,
              maxItems: 2,
              default: ["a"],
            },
            fish: {
              type: "array",
              items: {
                anyOf: [
                  { const: "f1", title: "Tuna" },
                  { const: "f2", title: "Cod" },
                ],
              },
            },
          },
          required: ["name"],
        },
        _meta: { pablo: { server: "records", deadline: QUESTION.deadline } },
      },
    ]);
  });

  it("leaves the tool call out when the session cannot tell which call asked", async () => {
    const e = await editor(async () => ({ action: "decline" }));
    await e.elicit({ ...QUESTION, server: "other" }, new AbortController().signal);
    expect(e.asked[0]).not.toHaveProperty("toolCallId");
  });

  it("maps the editor's accept, decline and cancel to the kernel's answers", async () => {
    const signal = new AbortController().signal;
    const accepted = await editor(async () => ({
      action: "accept",
      content: { name: "Grace", count: 4, confirm: true, tags: ["b"] },
    }));
    expect(await accepted.elicit(QUESTION, signal)).toEqual({
      action: "accept",
      content: { name: "Grace", count: 4, confirm: true, tags: ["b"] },
    });
    const empty = await editor(async () => ({ action: "accept" }));
    expect(await empty.elicit(QUESTION, signal)).toEqual({ action: "accept", content: {} });
    const declined = await editor(async () => ({ action: "decline" }));
    expect(await declined.elicit(QUESTION, signal)).toEqual({ action: "decline" });
    const cancelled = await editor(async () => ({ action: "cancel" }));
    expect(await cancelled.elicit(QUESTION, signal)).toEqual({ action: "cancel" });
  });

  it("declines a custom action, content that is no form value, and a request the editor fails", async () => {
    const signal = new AbortController().signal;
    const custom = await editor(async () => ({ action: "_later" }));
    expect(await custom.elicit(QUESTION, signal)).toEqual({ action: "decline" });
    const nested = await editor(
      async () =>
        ({ action: "accept", content: { name: { first: "G" } } }) as unknown as CreateElicitationResponse,
    );
    expect(await nested.elicit(QUESTION, signal)).toEqual({ action: "decline" });
    const failing = await editor(async () => {
      throw RequestError.internalError(undefined, "no form here");
    });
    expect(await failing.elicit(QUESTION, signal)).toEqual({ action: "decline" });
  });

  it("withdraws the request with $/cancel_request and answers cancel at once when the caller aborts", async () => {
    const e = await editor(never);
    const controller = new AbortController();
    const answer = e.elicit(QUESTION, controller.signal);
    await until(() => e.asked.length === 1);
    controller.abort();
    expect(await answer).toEqual({ action: "cancel" });
    await until(() => e.withdrawn.length === 1);
    // Already aborted: nothing is sent.
    expect(await e.elicit(QUESTION, controller.signal)).toEqual({ action: "cancel" });
    expect(e.asked).toHaveLength(1);
  });

  it("withdraws the request and answers cancel when the session's prompt is cancelled", async () => {
    const e = await editor(never);
    const answer = e.elicit(QUESTION, new AbortController().signal);
    await until(() => e.asked.length === 1);
    e.turn.abort();
    expect(await answer).toEqual({ action: "cancel" });
    await until(() => e.withdrawn.length === 1);
  });

  it("withdraws the request and declines at the question's deadline", async () => {
    const e = await editor(never);
    const started = Date.now();
    const answer = await e.elicit({ ...QUESTION, deadline: Date.now() + 200 }, new AbortController().signal);
    expect(answer).toEqual({ action: "decline" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    await until(() => e.withdrawn.length === 1);
  });

  it("declines without asking when the question has no session to go to", async () => {
    const elicit = acpElicit(() => undefined);
    expect(await elicit(QUESTION, new AbortController().signal)).toEqual({ action: "decline" });
  });
});

describe("which clients are asked", () => {
  it("reads the form capability from initialize's clientCapabilities.elicitation", () => {
    expect(canElicit({})).toBe(false);
    expect(canElicit({ elicitation: null })).toBe(false);
    expect(canElicit({ elicitation: {} })).toBe(false);
    expect(canElicit({ elicitation: { url: {} } })).toBe(false);
    expect(canElicit({ elicitation: { form: null } })).toBe(false);
    expect(canElicit({ elicitation: { form: {} } })).toBe(true);
  });

  it("gives session/new's broker an elicit only when the client advertised form elicitation", async () => {
    const brokerFor = async (clientCapabilities: ClientCapabilities): Promise<PermissionBroker> => {
      let seen: PermissionBroker | undefined;
      const server = createAcpServer({
        version: "0.0.0-test",
        open: async (request) => {
          seen = request.broker;
          throw RequestError.internalError(undefined, "no sessions in this test");
        },
      });
      const connection = acpClient({ name: "test" }).connect(server.app);
      onTestFinished(async () => {
        connection.close();
        await server.close();
      });
      await connection.agent.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities,
      });
      await expect(
        connection.agent.request(methods.agent.session.new, { cwd: "/", mcpServers: [] }),
      ).rejects.toThrow(/no sessions/);
      if (!seen) throw new Error("open was not called");
      return seen;
    };
    expect((await brokerFor({})).elicit).toBeUndefined();
    expect((await brokerFor({ elicitation: { url: {} } })).elicit).toBeUndefined();
    const asking = await brokerFor({ elicitation: { form: {} } });
    expect(asking.elicit).toBeTypeOf("function");
    // A question before the session exists has nowhere to go: declined.
    expect(await asking.elicit?.(QUESTION, new AbortController().signal)).toEqual({ action: "decline" });
  });
});

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
