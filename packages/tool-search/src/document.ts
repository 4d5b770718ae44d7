import type { CatalogEntry } from "@pablo/kernel";

/** What the index reads of a tool. */
export interface SearchDocument {
  readonly providerName: string;
  readonly name: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters: readonly { readonly name: string; readonly description: string }[];
}

/** A catalog entry as a search document: names, summary, description, parameter names and descriptions. */
export function documentOf(entry: CatalogEntry): SearchDocument {
  return {
    providerName: entry.providerName,
    name: entry.name,
    summary: entry.definition.summary,
    description: entry.definition.description,
    parameters: parametersOf(entry.inputJsonSchema),
  };
}

/** Property names and descriptions of a JSON Schema, nested ones included, at most 200. */
export function parametersOf(schema: unknown): { name: string; description: string }[] {
  const out: { name: string; description: string }[] = [];
  const visit = (node: unknown, depth: number) => {
    if (node === null || typeof node !== "object" || depth > 6 || out.length >= 200) return;
    const n = node as Record<string, unknown>;
    const properties = n["properties"];
    if (properties !== null && typeof properties === "object") {
      for (const [name, child] of Object.entries(properties)) {
        const description = (child as { description?: unknown } | null)?.description;
        out.push({ name, description: typeof description === "string" ? description : "" });
        visit(child, depth + 1);
      }
    }
    for (const key of ["items", "anyOf", "oneOf", "allOf"]) {
      const child = n[key];
      if (Array.isArray(child)) for (const c of child) visit(c, depth + 1);
      else visit(child, depth + 1);
    }
  };
  visit(schema, 0);
  return out;
}
