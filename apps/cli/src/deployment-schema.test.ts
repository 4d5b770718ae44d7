import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deploymentJsonSchema } from "./deployment-schema.js";

describe("the shipped deployment.schema.json", () => {
  it("is exactly what the packages' typebox schemas generate (run `pnpm --filter pablo schema` after a change)", () => {
    const shipped = JSON.parse(
      readFileSync(join(import.meta.dirname, "..", "deployment.schema.json"), "utf8"),
    ) as unknown;
    expect(shipped).toEqual(deploymentJsonSchema());
  });

  it("describes every options section and refuses unknown keys", () => {
    const schema = deploymentJsonSchema() as {
      additionalProperties: boolean;
      properties: { options: { additionalProperties: boolean; properties: Record<string, unknown> } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.options.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.options.properties).sort()).toEqual(
      [
        "a2a",
        "actions",
        "agent",
        "audit",
        "browser",
        "fs",
        "limits",
        "mcp",
        "modes",
        "network",
        "permission",
        "plugins",
        "policy",
        "sandbox",
        "shell",
        "skills",
      ].sort(),
    );
  });
});
