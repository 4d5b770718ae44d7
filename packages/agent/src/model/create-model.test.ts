import type { CredentialResolver } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { runAgent } from "../loop/agent.js";
import { harness } from "../test-support/harness.js";
import { useServer } from "../test-support/providers.js";
import { useWorkspace } from "../test-support/workspace.js";
import { anthropicReply } from "../testing/anthropic-wire.js";
import { createModel } from "./create-model.js";

function resolverWith(
  values: Record<string, { consumer: string; destination: string; value: string }>,
): CredentialResolver {
  const resolved: string[] = [];
  return {
    resolve(name, use) {
      const entry = values[name];
      if (!entry) return { ok: false, code: "CREDENTIAL_NOT_FOUND", message: `no credential named ${name}` };
      if (entry.consumer !== use.consumer || entry.destination !== use.destination) {
        return {
          ok: false,
          code: "CREDENTIAL_SCOPE",
          message: `credential ${name} is not available to ${use.consumer} for ${use.destination}`,
        };
      }
      resolved.push(entry.value);
      return { ok: true, value: entry.value };
    },
    resolvedValues: () => resolved,
  };
}

describe("createModel", () => {
  it("refuses malformed specs and unknown providers", () => {
    expect(createModel("claude", {})).toMatchObject({ ok: false, code: "MODEL_SPEC" });
    expect(createModel("anthropic:", {})).toMatchObject({ ok: false, code: "MODEL_SPEC" });
    expect(createModel("gemini:pro", {})).toMatchObject({
      ok: false,
      code: "MODEL_SPEC",
      message: expect.stringContaining("gemini"),
    });
  });

  it("needs a key for Anthropic but not for a local OpenAI-compatible server", () => {
    expect(createModel("anthropic:claude-x", {})).toMatchObject({ ok: false, code: "MODEL_CREDENTIALS" });
    expect(
      createModel("openai-compatible:llama3", { OPENAI_BASE_URL: "http://127.0.0.1:11434/v1" }),
    ).toMatchObject({ ok: true, secrets: [] });
  });

  it("refuses to send a key over plain http to a host that is not loopback", () => {
    const result = createModel("openai-compatible:m", {
      OPENAI_BASE_URL: "http://models.example.com/v1",
      OPENAI_API_KEY: "sk-x",
    });
    expect(result).toMatchObject({
      ok: false,
      code: "MODEL_CREDENTIALS",
      message: expect.stringContaining("plain http"),
    });
    expect(JSON.stringify(result)).not.toContain("sk-x");
  });

  it("prefers a deployment credential scoped to the provider and its base URL, and sends only that", async () => {
    const server = await useServer(() => anthropicReply({ text: "hi" }));
    const resolver = resolverWith({
      anthropic: {
        consumer: "model.anthropic",
        destination: `${server.url}/v1`,
        value: "sk-from-deployment",
      },
    });
    const created = createModel(
      "anthropic:claude-x",
      { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: "sk-from-env" },
      { resolver },
    );
    if (!created.ok) throw new Error(created.message);
    expect(created.secrets).toEqual(["sk-from-deployment"]);
    const h = await harness({ workspace: useWorkspace() });
    const events: unknown[] = [];
    await runAgent({
      session: h.session,
      model: created.model,
      prompt: "hi",
      onEvent: (e) => events.push(e),
    });
    expect(server.requests[0]?.headers["x-api-key"]).toBe("sk-from-deployment");
    expect(server.requests[0]?.path).toBe("/v1/messages");
    expect(JSON.stringify(events)).not.toContain("sk-from");
  });

  it("fails closed when the deployment's credential is bound to another destination", () => {
    const resolver = resolverWith({
      anthropic: { consumer: "model.anthropic", destination: "https://elsewhere.example/v1", value: "sk-x" },
    });
    const result = createModel("anthropic:claude-x", { ANTHROPIC_API_KEY: "sk-env" }, { resolver });
    expect(result).toMatchObject({
      ok: false,
      code: "MODEL_CREDENTIALS",
      message: expect.stringContaining("not available"),
    });
  });
});
