import { deploymentSchema } from "@pablo/config";
import { toJsonSchema } from "@pablo/kernel";
import { distributionSections } from "./providers.js";

/**
 * The JSON Schema of this distribution's deployment.toml, generated from the typebox schema each
 * package exports. Binding references (`{ base = "binding", ... }`) are accepted wherever a
 * string is, because the loader resolves them before validation.
 */
export function deploymentJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(deploymentSchema(distributionSections()));
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://pablo.dev/schemas/deployment.schema.json",
    ...(acceptBindings(schema) as Record<string, unknown>),
  } as Record<string, unknown>;
}

const BINDING = {
  type: "object",
  additionalProperties: false,
  required: ["base", "name", "path"],
  properties: {
    base: { const: "binding" },
    name: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" },
    path: { type: "string" },
  },
  description: "A path that resolves only through --bind NAME=DIR.",
};

function acceptBindings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(acceptBindings);
  if (node === null || typeof node !== "object") return node;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) copy[key] = acceptBindings(value);
  if (copy["type"] === "string" && copy["const"] === undefined && copy["enum"] === undefined) {
    return { anyOf: [copy, BINDING] };
  }
  return copy;
}
