import { PROVIDER_NAME_PATTERN } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { mcpNativeName, mcpProviderName } from "./names.js";

describe("MCP tool names", () => {
  it("qualifies native names as mcp/{server}/{tool}", () => {
    expect(mcpNativeName("records", "read_evidence")).toBe("mcp/records/read_evidence");
  });

  it("keeps the plain provider name when it is unambiguous and short", () => {
    expect(mcpProviderName("records", "read_evidence")).toBe("mcp_records_read_evidence");
    expect(mcpProviderName("everything", "get-env")).toBe("mcp_everything_get-env");
  });

  it("does not let underscores in server names collide with underscores in tool names", () => {
    const a = mcpProviderName("a_b", "c");
    const b = mcpProviderName("a", "b_c");
    expect(b).toBe("mcp_a_b_c");
    expect(a).toMatch(/^mcp__a_b_c_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
  });

  it("fits long and unusual names into 64 valid characters, deterministically", () => {
    const long = mcpProviderName("server".repeat(10), "tool".repeat(30));
    expect(long).toHaveLength(64);
    expect(long).toMatch(PROVIDER_NAME_PATTERN);
    expect(mcpProviderName("server".repeat(10), "tool".repeat(30))).toBe(long);
    const dotted = mcpProviderName("acme.records", "files.read");
    expect(dotted).toMatch(/^mcp__acme_records_files_read_[0-9a-f]{8}$/);
  });

  it("never maps two different tools of generated names to one provider name", () => {
    const seen = new Map<string, string>();
    const parts = ["a", "b", "a_b", "b_a", "a-b", "a.b", "_", "x".repeat(70)];
    for (const server of parts.filter((p) => p !== "_")) {
      for (const tool of parts) {
        const name = mcpProviderName(server, tool);
        expect(name).toMatch(PROVIDER_NAME_PATTERN);
        const native = mcpNativeName(server, tool);
        expect(seen.get(name) ?? native).toBe(native);
        seen.set(name, native);
      }
    }
  });
});
