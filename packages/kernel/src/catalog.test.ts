import Type from "typebox";
import { describe, expect, it } from "vitest";
import {
  CatalogBuilder,
  createCatalog,
  PabloError,
  PROVIDER_NAME_PATTERN,
  providerNameFor,
} from "./index.js";
import { echoTool } from "./test-support/tools.js";

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof PabloError ? error.code : "not-a-pablo-error";
  }
  return undefined;
}

describe("registration", () => {
  it("refuses an input schema without additionalProperties: false", () => {
    const open = echoTool({ inputSchema: Type.Object({ text: Type.String() }) });
    expect(codeOf(() => createCatalog([open]))).toBe("OPEN_SCHEMA");
  });

  it("refuses an open object nested inside a closed one", () => {
    const nested = echoTool({
      inputSchema: Type.Object(
        { options: Type.Object({ depth: Type.Number() }), list: Type.Array(Type.String()) },
        { additionalProperties: false },
      ),
    });
    expect(() => createCatalog([nested])).toThrow(/#\/properties\/options/);
  });

  it("refuses open objects hidden in unions and arrays", () => {
    const inUnion = echoTool({
      inputSchema: Type.Object(
        { v: Type.Union([Type.String(), Type.Array(Type.Object({ a: Type.String() }))]) },
        { additionalProperties: false },
      ),
    });
    expect(codeOf(() => createCatalog([inUnion]))).toBe("OPEN_SCHEMA");
  });

  it("refuses a non-object input schema", () => {
    expect(codeOf(() => createCatalog([echoTool({ inputSchema: Type.String() })]))).toBe("OPEN_SCHEMA");
  });

  it("refuses two tools with one native name and two native names with one provider name", () => {
    expect(codeOf(() => createCatalog([echoTool(), echoTool()]))).toBe("NAME_COLLISION");
    const a = echoTool({ name: "a.b" });
    const b = echoTool({ name: "a/b" });
    expect(codeOf(() => createCatalog([a, b]))).toBe("NAME_COLLISION");
  });

  it("refuses an explicit provider name that models would reject", () => {
    expect(codeOf(() => createCatalog([echoTool({ providerName: "has space" })]))).toBe("INVALID_NAME");
    expect(codeOf(() => createCatalog([echoTool({ providerName: "x".repeat(65) })]))).toBe("INVALID_NAME");
  });

  it("refuses a tool without execute or with an unknown risk", () => {
    expect(codeOf(() => createCatalog([echoTool({ risk: "extreme" as "low" })]))).toBe(
      "INVALID_TOOL_DEFINITION",
    );
  });

  it("reports refused tools as diagnostics when built from providers", async () => {
    const builder = new CatalogBuilder();
    const diagnostics = await builder.addProviders([
      { id: "good", tools: () => [echoTool()] },
      { id: "bad", tools: () => [echoTool({ name: "test.open", inputSchema: Type.Object({}) })] },
      {
        id: "broken",
        tools: () => {
          throw new Error("server did not start");
        },
      },
    ]);
    expect(diagnostics.map((d) => [d.source, d.code])).toEqual([
      ["bad", "OPEN_SCHEMA"],
      ["broken", "PROVIDER_FAILED"],
    ]);
    expect(builder.build().entries.map((e) => e.name)).toEqual(["test.echo"]);
  });

  it("is frozen once built: nothing can be added", () => {
    const builder = new CatalogBuilder().add(echoTool());
    const catalog = builder.build();
    expect(codeOf(() => builder.add(echoTool({ name: "test.other" })))).toBe("CATALOG_FROZEN");
    expect(Object.isFrozen(catalog.entries)).toBe(true);
  });

  it("resolves both provider and native names, and maps provider names back", () => {
    const catalog = createCatalog([echoTool({ name: "mcp/records/read_evidence" })]);
    expect(catalog.resolve("mcp_records_read_evidence")?.name).toBe("mcp/records/read_evidence");
    expect(catalog.resolve("mcp/records/read_evidence")?.providerName).toBe("mcp_records_read_evidence");
    expect(catalog.nativeName("mcp_records_read_evidence")).toBe("mcp/records/read_evidence");
  });

  it("hashes the model-visible definition so a changed definition is detectable", () => {
    const one = createCatalog([echoTool()]).entries[0];
    const same = createCatalog([echoTool()]).entries[0];
    const changed = createCatalog([echoTool({ description: "Echoes differently." })]).entries[0];
    expect(one?.definitionHash).toBe(same?.definitionHash);
    expect(one?.definitionHash).not.toBe(changed?.definitionHash);
  });
});

describe("provider names", () => {
  it("maps native names deterministically", () => {
    expect(providerNameFor("fs.read")).toBe("fs_read");
    expect(providerNameFor("plugin.acme.lint")).toBe("plugin_acme_lint");
    expect(providerNameFor("mcp/records/read_evidence")).toBe("mcp_records_read_evidence");
  });

  it("cuts long names to 64 characters with a hash suffix that keeps them apart", () => {
    const long = `mcp/${"s".repeat(40)}/${"t".repeat(40)}`;
    const other = `mcp/${"s".repeat(40)}/${"t".repeat(39)}u`;
    const a = providerNameFor(long);
    const b = providerNameFor(other);
    expect(a).toHaveLength(64);
    expect(a).toMatch(PROVIDER_NAME_PATTERN);
    expect(a).not.toBe(b);
    expect(providerNameFor(long)).toBe(a);
  });

  it("hashes names whose characters had to be replaced, so lossy mappings do not meet", () => {
    expect(providerNameFor("plugin.acme.lint:v2")).toMatch(/^plugin_acme_lint_v2_[0-9a-f]{8}$/);
    expect(providerNameFor("a+b")).not.toBe(providerNameFor("a*b"));
  });
});
