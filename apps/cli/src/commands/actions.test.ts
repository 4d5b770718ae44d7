import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { captureIo, useSandbox } from "../test-support/cli-harness.js";
import {
  actionsCheckCommand,
  actionsKeygenCommand,
  actionsListCommand,
  actionsSignCommand,
  actionsVerifyCommand,
} from "./actions.js";

const CATALOG = `# the seed's example, plus one action this host cannot run
actions:
  - name: host_snapshot
    description: Read uptime and memory in separate steps.
    risk: read
    params: {}
    steps:
      - name: uptime
        exec: [/usr/bin/uptime]
      - name: memory
        exec: [/usr/bin/free, -m]
    on_error: continue
    timeout: 10s
    max_output: 64KB
    filters: [head, count]
    redact:
      builtin: [secrets]
  - name: elsewhere
    description: Needs a tool this host lacks.
    risk: read
    exec: [/opt/not-installed/tool]
`;

describe("pablo actions keygen | sign | verify | list | check", () => {
  it("generates a key, signs a catalog, and verifies, lists and checks it", async () => {
    const sandbox = useSandbox({ "catalog.yaml": CATALOG });
    const { io, output } = captureIo(sandbox);
    expect(actionsKeygenCommand(io, { prefix: "signing", json: false })).toBe(0);
    expect(statSync(join(sandbox.workspace, "signing.key")).mode & 0o777).toBe(0o600);
    expect(actionsKeygenCommand(io, { prefix: "signing", json: false })).toBe(2);
    expect(actionsSignCommand(io, { catalog: "catalog.yaml", key: "signing.key", json: false })).toBe(0);
    const signed = readFileSync(join(sandbox.workspace, "catalog.yaml"), "utf8");
    expect(signed).toContain("# the seed's example");
    expect(signed).toMatch(/signature:\n\s+key_id: [0-9a-f]{16}\n\s+value: /);

    const sources = { catalogs: ["catalog.yaml"], trusted: ["signing.pub"], json: false };
    expect(actionsVerifyCommand(io, sources)).toBe(0);
    expect(actionsListCommand(io, sources)).toBe(0);
    expect(await actionsCheckCommand(io, sources)).toBe(1);
    const { stdout } = output();
    expect(stdout).toMatch(/^ok {7}host_snapshot \(key [0-9a-f]{16}\)$/m);
    expect(stdout).toMatch(/^action\.host_snapshot +read +steps \(2\) +head,count$/m);
    expect(stdout).toContain("supported   host_snapshot\n");
    expect(stdout).toContain(
      "unsupported elsewhere\n  step main: missing executable /opt/not-installed/tool\n",
    );
  });

  it("verify names a tampered action and exits 1", () => {
    const sandbox = useSandbox({ "catalog.yaml": CATALOG });
    const { io, output } = captureIo(sandbox);
    actionsKeygenCommand(io, { prefix: "k", json: false });
    actionsSignCommand(io, { catalog: "catalog.yaml", key: "k.key", json: false });
    const file = join(sandbox.workspace, "catalog.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("/usr/bin/free, -m", "/usr/bin/free, -h"));
    const code = actionsVerifyCommand(io, { catalogs: ["catalog.yaml"], trusted: ["k.pub"], json: true });
    expect(code).toBe(1);
    const report = JSON.parse(output().stdout.slice(output().stdout.indexOf("{"))) as {
      verified: string[];
      diagnostics: { action: string; code: string }[];
    };
    expect(report.verified).toEqual(["elsewhere"]);
    expect(report.diagnostics.map((d) => [d.action, d.code])).toEqual([
      ["host_snapshot", "SIGNATURE_INVALID"],
    ]);
  });

  it("refuses to run without catalogs and trusted keys", () => {
    const sandbox = useSandbox();
    const { io, output } = captureIo(sandbox);
    expect(actionsListCommand(io, { catalogs: [], trusted: [], json: false })).toBe(2);
    expect(output().stderr).toContain("[ACTIONS_NOT_CONFIGURED]");
  });
});
