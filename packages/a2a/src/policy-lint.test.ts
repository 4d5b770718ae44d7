import { describe, expect, it } from "vitest";
import { a2aCredentialReferences, lintA2a } from "./policy-lint.js";

const section = {
  remotes: {
    plain: {
      card_url: "http://agent.example.com/card.json",
      endpoint: "https://agent.example.com/rpc",
      bearer: "used",
    },
    loop: { card_url: "http://127.0.0.1:9/card.json", endpoint: "http://127.0.0.1:9/rpc" },
    fine: { card_url: "https://ok.example/card.json", endpoint: "https://ok.example/rpc" },
  },
  serve: { bearer: "served" },
};

describe("lintA2a", () => {
  it("finds plain http off loopback, loopback http without opt-in, and a bearer for no endpoint", () => {
    const findings = lintA2a(section, {
      used: { consumer: "a2a.bearer", destination: "https://agent.example.com/rpc" },
      stray: { consumer: "a2a.bearer", destination: "https://nowhere.example/rpc" },
      other: { consumer: "mcp.headers" },
    });
    expect(findings).toMatchInlineSnapshot(`
      [
        {
          "kind": "plain-http",
          "message": "http://agent.example.com/card.json is plain http off loopback; use https:",
          "where": "options.a2a.remotes.plain.card_url",
        },
        {
          "kind": "plain-http",
          "message": "card_url uses plain http to loopback; set allow_loopback_http = true to allow it",
          "where": "options.a2a.remotes.loop.card_url",
        },
        {
          "kind": "plain-http",
          "message": "endpoint uses plain http to loopback; set allow_loopback_http = true to allow it",
          "where": "options.a2a.remotes.loop.endpoint",
        },
        {
          "kind": "bearer-destination",
          "message": "a2a.bearer credential stray is for https://nowhere.example/rpc, which is no configured endpoint",
          "where": "credentials.stray",
        },
      ]
    `);
  });
});

describe("a2aCredentialReferences", () => {
  it("names each remote bearer for its canonical endpoint and the serve bearer", () => {
    expect(a2aCredentialReferences(section)).toEqual([
      {
        credential: "used",
        consumer: "a2a.bearer",
        destination: "https://agent.example.com/rpc",
        keyPath: "options.a2a.remotes.plain.bearer",
      },
      {
        credential: "served",
        consumer: "a2a.serve",
        destination: "a2a.serve",
        keyPath: "options.a2a.serve.bearer",
      },
    ]);
  });
});
