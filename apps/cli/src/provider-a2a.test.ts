import { serveA2a } from "@pablo/a2a";
import { loadDeploymentFile } from "@pablo/config";
import type { CredentialResolver } from "@pablo/kernel";
import { describe, expect, it, onTestFinished } from "vitest";
import { a2aPolicyFindings, explainRemotes } from "./a2a-status.js";
import { openA2a } from "./provider-a2a.js";
import { distributionSections } from "./providers.js";
import { useSandbox } from "./test-support/cli-harness.js";

const noCredentials: CredentialResolver = {
  resolve: () => ({ ok: false, code: "CREDENTIAL_NOT_FOUND", message: "none" }),
  resolvedValues: () => [],
};

describe("the A2A provider of a task", () => {
  it("admits a served agent, offers the handoff, and explains every remote's card status", async () => {
    const served = await serveA2a({
      name: "peer",
      description: "A peer.",
      version: "1",
      port: 0,
      run: async () => ({ ok: true, text: "ok" }),
    });
    onTestFinished(() => served.close());
    const opened = await openA2a(
      {
        remotes: {
          peer: { card_url: served.cardUrl, endpoint: served.url, allow_loopback_http: true },
          gone: {
            card_url: "http://127.0.0.1:9/card.json",
            endpoint: "http://127.0.0.1:9/rpc",
            allow_loopback_http: true,
          },
        },
      },
      { credentials: noCredentials, layers: [] },
    );
    expect(opened.handoff).toBe(true);
    expect((await opened.providers[0]?.tools())?.map((t) => t.name)).toEqual(["a2a/peer"]);
    expect(opened.diagnostics()).toEqual([
      expect.objectContaining({ source: "a2a/gone", code: "A2A_CARD_UNAVAILABLE" }),
    ]);
    const lines = explainRemotes(opened.providers);
    expect(lines[0]).toBe(`a2a/peer: admitted (streaming); card ${served.cardUrl}, endpoint ${served.url}`);
    expect(lines[1]).toMatch(
      /^a2a\/gone: left out \[A2A_CARD_UNAVAILABLE\]; card http:\/\/127\.0\.0\.1:9\/card\.json/,
    );
  });

  it("offers nothing, and no handoff, without remotes", async () => {
    const opened = await openA2a(undefined, { credentials: noCredentials, layers: [] });
    expect(opened).toMatchObject({ providers: [], handoff: false, statuses: [] });
  });

  it("lints plain http off loopback and a bearer for no endpoint", () => {
    const sandbox = useSandbox();
    const file = sandbox.write(
      "deployment.toml",
      [
        "[credentials.stray]",
        'consumer = "a2a.bearer"',
        'destination = "https://nowhere.example/rpc"',
        'sources = [{ kind = "environment", name = "X" }]',
        "[options.a2a.remotes.plain]",
        'card_url = "http://agent.example.com/card.json"',
        'endpoint = "https://agent.example.com/rpc"',
        "",
      ].join("\n"),
    );
    const loaded = loadDeploymentFile(file, { sections: distributionSections(), bindings: {} });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.errors));
    expect(a2aPolicyFindings(loaded.value).map((f) => f.kind)).toEqual(["plain-http", "bearer-destination"]);
  });
});
