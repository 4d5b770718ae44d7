import { fileURLToPath } from "node:url";
import type { ElicitationRequest } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { openMcpCatalog } from "./catalog.js";
import type { McpElicitHandler } from "./elicitation.js";
import { sessionOver, textOf } from "./test-support/kernel-session.js";

const FIXTURE = fileURLToPath(new URL("./test-support/fixtures/eliciting-server.mjs", import.meta.url));
const noCredentials = { resolve: () => ({ ok: false }) } as never;

async function ask(elicit: McpElicitHandler | undefined, schema = "flat", elicitTimeoutMs?: number) {
  const catalog = await openMcpCatalog({
    servers: {
      q: { transport: "stdio", command: process.execPath, args: [FIXTURE, schema], required: true },
    },
    credentials: noCredentials,
    ...(elicit ? { elicit } : {}),
    ...(elicitTimeoutMs ? { elicitTimeoutMs } : {}),
  });
  try {
    const t = await sessionOver(catalog);
    const { result } = await t.session.call({ tool: "mcp_q_ask", args: {} });
    return { result, audit: JSON.stringify(t.audit), records: t.audit.records };
  } finally {
    await catalog.close();
  }
}

describe("MCP elicitation through the host", () => {
  it("accepts with the schema's defaults applied to fields the answer leaves out, and keeps typed values out of the audit", async () => {
    const { result, audit } = await ask(async () => ({
      action: "accept",
      content: { name: "Zelda-typed-value" },
    }));
    const answer = JSON.parse(textOf(result));
    expect(answer).toEqual({
      action: "accept",
      content: { name: "Zelda-typed-value", age: 36, subscribed: true, color: "green" },
    });
    expect(audit).not.toContain("Zelda-typed-value");
  });

  it("offers the spec's enum spellings and multiselects with their labels, and sends picks back as arrays", async () => {
    let asked: ElicitationRequest | undefined;
    const { result } = await ask(async (request) => {
      asked = request;
      return { action: "accept", content: { fish: ["f2", "f3"], hero: "h2" } };
    }, "choices");
    expect(asked?.fields).toEqual({
      pet: { type: "enum", options: ["pet-1", "pet-2"], optionTitles: ["Cats", "Dogs"], default: "pet-1" },
      hero: { type: "enum", options: ["h1", "h2"], optionTitles: ["Superman", "Batman"] },
      fish: {
        type: "multiselect",
        options: ["f1", "f2", "f3"],
        optionTitles: ["Tuna", "Trout", "Cod"],
        minItems: 1,
        maxItems: 2,
        default: ["f1"],
      },
      tools: { type: "multiselect", options: ["saw", "drill"] },
    });
    expect(JSON.parse(textOf(result))).toEqual({
      action: "accept",
      content: { pet: "pet-1", hero: "h2", fish: ["f2", "f3"] },
    });
  });

  it("declines an answer that picks more than a multiselect's maxItems", async () => {
    const { result } = await ask(
      async () => ({ action: "accept", content: { fish: ["f1", "f2", "f3"] } }),
      "choices",
    );
    expect(JSON.parse(textOf(result)).action).toBe("decline");
  });

  it("notes in the call's audit record how each question was answered, never the values", async () => {
    const accepted = await ask(async () => ({ action: "accept", content: { name: "Quill-typed-value" } }));
    expect(accepted.records).toMatchObject([{ tool: "mcp/q/ask", notes: { elicitations: ["accept"] } }]);
    expect(accepted.audit).not.toContain("Quill-typed-value");
    const declined = await ask(async () => ({ action: "decline" }));
    expect(declined.records).toMatchObject([{ notes: { elicitations: ["decline"] } }]);
  });

  it("declines when the user declines", async () => {
    const { result } = await ask(async () => ({ action: "decline" }));
    expect(JSON.parse(textOf(result)).action).toBe("decline");
  });

  it("cancels when the user dismisses the question or the host's question fails", async () => {
    const dismissed = await ask(async () => ({ action: "cancel" }));
    expect(JSON.parse(textOf(dismissed.result)).action).toBe("cancel");
    const failed = await ask(async () => {
      throw new Error("terminal gone");
    });
    expect(JSON.parse(textOf(failed.result)).action).toBe("cancel");
  });

  it("declines when nobody answers within the timeout", async () => {
    const { result } = await ask(
      (_r, signal) =>
        new Promise((resolve) => signal.addEventListener("abort", () => resolve({ action: "cancel" }))),
      "flat",
      300,
    );
    expect(JSON.parse(textOf(result)).action).toBe("decline");
  });

  it("refuses a schema with more properties than the bound without asking", async () => {
    let asked = false;
    const { result } = await ask(async () => {
      asked = true;
      return { action: "accept", content: {} };
    }, "oversized");
    expect(asked).toBe(false);
    expect(JSON.parse(textOf(result)).action).toBe("decline");
  });

  it("refuses a nested schema without asking (the SDK rejects it before the host sees it)", async () => {
    let asked = false;
    const { result } = await ask(async () => {
      asked = true;
      return { action: "accept", content: {} };
    }, "nested");
    expect(asked).toBe(false);
    expect(result.ok).toBe(false);
  });

  it("declares no elicitation capability when the host gives no handler", async () => {
    const { result } = await ask(undefined);
    expect(JSON.stringify(result)).not.toContain('"action":"accept"');
  });
});
