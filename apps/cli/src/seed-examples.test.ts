import { chmodSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

// The configuration examples of seeds 000 and 002, verbatim except for paths the test provides.
const seedMcpAndSkills = (records: string) => `[credentials.records]
consumer = "mcp.environment"
sources = [{ kind = "environment", name = "RECORDS_TOKEN" }]

[options.mcp.servers.records]
transport = "stdio"
command = ${JSON.stringify(records)}
args = ["--stdio"]
cwd = { base = "binding", name = "mcp", path = "." }
env = { RECORDS_TOKEN = "records" }
required = false
startup_timeout_ms = 30000
operation_timeout_ms = 60000

[credentials.evidence]
consumer = "mcp.headers"
sources = [{ kind = "environment", name = "EVIDENCE_TOKEN" }]

[options.mcp.servers.evidence]
transport = "http"
url = "https://mcp.example.com/mcp"
headers = { x-evidence-token = "evidence" }
required = false
startup_timeout_ms = 2000
operation_timeout_ms = 60000

[[options.mcp.policies]]
[options.mcp.policies.servers]
default = "deny"
allow = [{ id = "support.evidence-server", value = "evidence" }]

[options.mcp.policies.tools]
default = "deny"
allow = [{ id = "support.read-evidence", value = "mcp/evidence/read_evidence" }]

[options.skills.roots]
team = { base = "binding", name = "skills", path = "." }

[options.skills]
activate = ["team/evidence-review"]

[options.a2a.remotes.reviewer]
card_url = "https://agent.example.com/.well-known/agent-card.json"
endpoint = "https://agent.example.com/rpc"
`;

describe("the seeds' example configurations", () => {
  it("seed 002: MCP servers, policies, credentials, skills and A2A parse with their bindings and mean what the seed says", async () => {
    const sandbox = useSandbox();
    const records = sandbox.write("bin/records-server", "#!/bin/sh\nexit 1\n");
    chmodSync(records, 0o755);
    const config = sandbox.write("deployment.toml", seedMcpAndSkills(records));
    const skills = join(import.meta.dirname, "..", "..", "..", "skills");
    const binds = ["--bind", `mcp=${sandbox.root}`, "--bind", `skills=${skills}`];

    const missing = await pablo(["tools", "--config", config, "--bind", `skills=${skills}`], sandbox);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--bind mcp=DIR");

    const { code, stdout } = await pablo(
      ["tools", "--json", "--explain", "--config", config, ...binds],
      sandbox,
    );
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as {
      layers: string[];
      diagnostics: Array<{ source: string; message: string }>;
    };
    // The policy allows only the evidence server, so records is never started; the policy layer is in the stack.
    expect(parsed.layers).toContain("mcp.policy.1");
    expect(parsed.diagnostics.some((d) => d.source === "mcp/records")).toBe(true);
    expect(parsed.diagnostics.some((d) => d.source === "mcp/evidence")).toBe(true);

    const check = await pablo(["policy", "check", "--json", "--config", config, ...binds], sandbox);
    const findings = (JSON.parse(check.stdout) as { findings: Array<{ kind: string; rule: string }> })
      .findings;
    // read_evidence is not registered (the server is unreachable here), so its allow rule can never match.
    expect(findings).toContainEqual(
      expect.objectContaining({ kind: "never-matches", rule: "support.read-evidence" }),
    );
  });

  it("seed 000: the command rules deny, allow and refuse what the seed says", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.shell]
enabled = true

[options.shell.commands]
default = "deny"
allow = [
  { id = "docs.git-status", executable = "/usr/bin/git", args = ["status"], match = "prefix" },
  { id = "docs.wc", executable = "/usr/bin/wc", args = [], match = "prefix" }
]
deny = [
  { id = "docs.no-force", executable = "/usr/bin/git", args = ["push", "--force"], match = "exact" }
]
`,
    );
    const decide = async (command: string) =>
      JSON.parse(
        (
          await pablo(
            [
              "call",
              "shell.run",
              "--config",
              config,
              "--dry-run",
              "--json",
              "--args",
              JSON.stringify({ command }),
            ],
            sandbox,
          )
        ).stdout,
      ) as { decision: string; rule: string };
    // The rules admit it; permission would ask, and without a terminal there is no one to ask, so
    // the dry run says what the call would get: a deny by the permission stage.
    expect(await decide("wc -l README.md")).toMatchObject({ decision: "deny", rule: "permission.ask.high" });
    expect(await decide("git push --force")).toMatchObject({ decision: "deny", rule: "docs.no-force" });
    expect(await decide("git push")).toMatchObject({ decision: "deny", rule: "default" });
    expect(await decide("ls")).toMatchObject({ decision: "deny", rule: "default" });
  });

  it("seed 000: the shell example's arguments validate as shell.run's closed schema", async () => {
    const sandbox = useSandbox({ "README.md": "a\nb\n" });
    const args = {
      command: "wc -l README.md",
      cwd: ".",
      timeout_ms: 5000,
      max_output_bytes: 8192,
      env: { PABLO_TASK_LABEL: "docs" },
    };
    const { code, stdout } = await pablo(
      ["call", "shell.run", "--permission", "auto", "--json", "--args", JSON.stringify(args)],
      sandbox,
    );
    expect(code).toBe(0);
    expect(stdout).toContain("2 README.md");
  });
});

describe("delegates", () => {
  it("pablo tools --delegate prints a Task delegate's effective authority", async () => {
    const sandbox = useSandbox();
    const config = sandbox.write(
      "deployment.toml",
      `[options.agent.subagents.reader]\ndescription = "Reads files"\ntools = ["Read", "Grep", "Write"]\n`,
    );
    const { code, stdout } = await pablo(
      ["tools", "--delegate", "reader", "--json", "--config", config],
      sandbox,
    );
    expect(code).toBe(0);
    const parsed = JSON.parse(stdout) as { tools: string[]; excluded: Array<{ name: string; rule: string }> };
    expect(parsed.tools).toContain("fs.read");
    expect(parsed.tools).not.toContain("shell.run");
    // The definition grants Write, but the session has no --allow-write: the intersection refuses it.
    expect(parsed.tools).not.toContain("fs.write");
    expect(parsed.excluded.find((e) => e.name === "fs.write")?.rule).toBe("cli.no-allow-write");
    const unknown = await pablo(["tools", "--delegate", "nobody", "--config", config], sandbox);
    expect(unknown.code).toBe(2);
  });
});
