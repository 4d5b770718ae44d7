import { describe, expect, it } from "vitest";
import { checkCredentialReferences, createCredentialResolver } from "./index.js";

const credentials = {
  records: {
    consumer: "mcp.environment",
    sources: [{ kind: "environment" as const, name: "RECORDS_TOKEN" }],
  },
  evidence: { consumer: "mcp.headers", sources: [{ kind: "environment" as const, name: "EVIDENCE_TOKEN" }] },
};
const references = [
  {
    credential: "records",
    consumer: "mcp.environment",
    destination: "records",
    keyPath: "options.mcp.servers.records.env.RECORDS_TOKEN",
  },
  {
    credential: "evidence",
    consumer: "mcp.headers",
    destination: "evidence",
    keyPath: "options.mcp.servers.evidence.headers.x-evidence-token",
  },
];
const env = { RECORDS_TOKEN: "rec-secret-0001", EVIDENCE_TOKEN: "evi-secret-0002" };

describe("credentials", () => {
  it("resolve only for their named consumer and exact destination", () => {
    const resolver = createCredentialResolver(credentials, references, env);
    expect(resolver.resolve("records", { consumer: "mcp.environment", destination: "records" })).toEqual({
      ok: true,
      value: "rec-secret-0001",
    });
    for (const use of [
      { consumer: "mcp.environment", destination: "evidence" },
      { consumer: "mcp.headers", destination: "records" },
      { consumer: "process.environment", destination: "records" },
    ]) {
      const denied = resolver.resolve("records", use);
      expect(denied).toMatchObject({ ok: false, code: "CREDENTIAL_SCOPE" });
      expect(JSON.stringify(denied)).not.toContain("rec-secret");
    }
    expect(resolver.resolvedValues()).toEqual(["rec-secret-0001"]);
  });

  it("refuses a credential shared by two destinations or used by the wrong consumer", () => {
    const twice = [
      ...references,
      { ...references[0], destination: "other", keyPath: "options.mcp.servers.other.env.X" },
    ] as typeof references;
    expect(checkCredentialReferences(credentials, twice, "d.toml").map((e) => e.message)).toEqual([
      "credential records is referenced by other and records; a credential reaches exactly one destination",
    ]);
    const wrong = [{ ...references[0], consumer: "mcp.headers" }] as typeof references;
    expect(checkCredentialReferences(credentials, wrong, "d.toml")[0]?.message).toContain(
      "is for consumer mcp.environment",
    );
    const missing = [{ ...references[0], credential: "ghost" }] as typeof references;
    expect(checkCredentialReferences(credentials, missing, "d.toml")[0]?.message).toContain(
      "does not define",
    );
  });

  it("reports an unavailable source without a value", () => {
    const resolver = createCredentialResolver(credentials, references, {});
    expect(
      resolver.resolve("records", { consumer: "mcp.environment", destination: "records" }),
    ).toMatchObject({
      ok: false,
      code: "CREDENTIAL_UNAVAILABLE",
    });
  });
});
