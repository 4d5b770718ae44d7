import { createCatalog, defineLayer } from "@pablo/kernel";
import { inertTool } from "@pablo/test-support";
import { describe, expect, it } from "vitest";
import { checkPolicy } from "./index.js";

const tool = (name: string) => inertTool(name);

describe("policy check", () => {
  it("finds rules that never match, dead allows, duplicate IDs, missing launchers and unused credentials", () => {
    const catalog = createCatalog([tool("fs.read"), tool("fs.write"), tool("mcp/records/read")]);
    const deployment = defineLayer({
      id: "deployment",
      tool: {
        allow: [
          { id: "read", match: "fs.read" },
          { id: "typo", match: "fs.raed" },
          { id: "all-fs", match: "fs.*" },
        ],
        deny: [{ id: "no-fs", match: "fs.*" }],
      },
      command: { allow: [{ id: "ghost-git", executable: "/nonexistent/git", args: [], match: "prefix" }] },
    });
    const session = defineLayer({ id: "session", tool: { deny: [{ id: "read", match: "mcp/*" }] } });
    const findings = checkPolicy({
      layers: [deployment, session],
      catalog,
      credentials: { unused: { consumer: "mcp.environment", sources: [{ kind: "environment", name: "X" }] } },
      references: [],
      launchers: [{ path: "/bin/sh", where: "options.shell" }],
    });
    const summary = findings.map((f) => `${f.kind}:${f.layer}/${f.rule}`).sort();
    expect(summary).toEqual(
      [
        "dead-allow:deployment/all-fs",
        "dead-allow:deployment/read",
        "dead-allow:deployment/typo",
        "duplicate-rule-id:session/read",
        "missing-launcher:deployment/ghost-git",
        "never-matches:deployment/typo",
        "unused-credential:deployment/credentials.unused",
      ].sort(),
    );
  });
});
