import { createHash } from "node:crypto";
import { HostErrorCode, PabloError } from "./errors.js";
import { canonicalJson } from "./json.js";
import { findUncompilablePattern, lazyValidator } from "./lazy-validator.js";
import { isValidNativeName, PROVIDER_NAME_PATTERN, providerNameFor } from "./names.js";
import { findOpenObject, toJsonSchema, type Validator } from "./schema.js";
import type { AnyToolDefinition, ToolProvider } from "./tool.js";

/** A registered tool with everything dispatch needs precomputed once. */
export interface CatalogEntry {
  readonly definition: AnyToolDefinition;
  readonly name: string;
  readonly providerName: string;
  /** The input schema as plain JSON Schema, exactly what a model is sent. */
  readonly inputJsonSchema: Readonly<Record<string, unknown>>;
  /** SHA-256 of the definition's model-visible parts, to detect a definition that changes. */
  readonly definitionHash: string;
  readonly validator: Validator;
  readonly outputValidator: Validator | undefined;
}

/** A task's frozen catalog. Policy narrows what a session sees of it; nothing adds to it. */
export interface Catalog {
  readonly entries: readonly CatalogEntry[];
  /** Resolves a provider name or a native name. */
  resolve(name: string): CatalogEntry | undefined;
  /** The native name behind a provider name. */
  nativeName(providerName: string): string | undefined;
}

/** Why a provider or a tool could not be added, without stopping the catalog from being built. */
export interface CatalogDiagnostic {
  readonly source: string;
  readonly tool?: string;
  readonly code: string;
  readonly message: string;
}

/**
 * Collects tools for one task. Registration checks each definition (closed schema, valid names,
 * no provider-name collision) and refuses a bad one with a {@link PabloError}; `build()` freezes.
 */
export class CatalogBuilder {
  readonly #byName = new Map<string, CatalogEntry>();
  readonly #byProvider = new Map<string, CatalogEntry>();
  #frozen = false;

  /** Registers a tool or throws `OPEN_SCHEMA`, `INVALID_NAME`, `NAME_COLLISION`, `INVALID_TOOL_DEFINITION`. */
  add(definition: AnyToolDefinition): this {
    if (this.#frozen) throw new PabloError(HostErrorCode.CATALOG_FROZEN, "the catalog is frozen");
    const entry = prepareEntry(definition);
    const existingNative = this.#byName.get(entry.name);
    if (existingNative) {
      throw new PabloError(HostErrorCode.NAME_COLLISION, `tool ${entry.name} is already registered`, {
        tool: entry.name,
      });
    }
    const existingProvider = this.#byProvider.get(entry.providerName);
    if (existingProvider) {
      throw new PabloError(
        HostErrorCode.NAME_COLLISION,
        `provider name ${entry.providerName} of ${entry.name} collides with ${existingProvider.name}`,
        { tool: entry.name, providerName: entry.providerName, other: existingProvider.name },
      );
    }
    this.#byName.set(entry.name, entry);
    this.#byProvider.set(entry.providerName, entry);
    return this;
  }

  /** Like {@link add}, but returns a diagnostic instead of throwing. */
  tryAdd(definition: AnyToolDefinition, source: string): CatalogDiagnostic | undefined {
    try {
      this.add(definition);
      return undefined;
    } catch (error) {
      if (!(error instanceof PabloError)) throw error;
      return { source, tool: String(definition?.name), code: error.code, message: error.message };
    }
  }

  /** Adds every tool of each provider; a provider that fails or a tool that is refused is a diagnostic. */
  async addProviders(providers: readonly ToolProvider[]): Promise<CatalogDiagnostic[]> {
    const diagnostics: CatalogDiagnostic[] = [];
    for (const provider of providers) {
      let tools: readonly AnyToolDefinition[];
      try {
        tools = await provider.tools();
      } catch (error) {
        diagnostics.push({
          source: provider.id,
          code: HostErrorCode.PROVIDER_FAILED,
          message: errorMessage(error),
        });
        continue;
      }
      for (const tool of tools) {
        const diagnostic = this.tryAdd(tool, provider.id);
        if (diagnostic) diagnostics.push(diagnostic);
      }
    }
    return diagnostics;
  }

  /** Freezes the catalog. Entries keep registration order. */
  build(): Catalog {
    this.#frozen = true;
    const entries = Object.freeze([...this.#byName.values()]);
    const byName = new Map(this.#byName);
    const byProvider = new Map(this.#byProvider);
    return Object.freeze({
      entries,
      resolve: (name: string) => byProvider.get(name) ?? byName.get(name),
      nativeName: (providerName: string) => byProvider.get(providerName)?.name,
    });
  }
}

/** Builds a frozen catalog from tool definitions; throws on the first bad one. */
export function createCatalog(definitions: readonly AnyToolDefinition[]): Catalog {
  const builder = new CatalogBuilder();
  for (const definition of definitions) builder.add(definition);
  return builder.build();
}

function prepareEntry(definition: AnyToolDefinition): CatalogEntry {
  const name = definition?.name;
  if (typeof name !== "string" || !isValidNativeName(name)) {
    throw new PabloError(HostErrorCode.INVALID_NAME, `invalid native tool name ${JSON.stringify(name)}`);
  }
  if (typeof definition.execute !== "function") {
    throw new PabloError(HostErrorCode.INVALID_TOOL_DEFINITION, `tool ${name} has no execute function`);
  }
  if (!["low", "medium", "high"].includes(definition.risk)) {
    throw new PabloError(
      HostErrorCode.INVALID_TOOL_DEFINITION,
      `tool ${name} has invalid risk ${String(definition.risk)}`,
    );
  }
  const providerName = definition.providerName ?? providerNameFor(name);
  if (!PROVIDER_NAME_PATTERN.test(providerName)) {
    throw new PabloError(
      HostErrorCode.INVALID_NAME,
      `provider name ${JSON.stringify(providerName)} of ${name} is invalid`,
    );
  }
  const inputJsonSchema = toJsonSchema(definition.inputSchema);
  if (inputJsonSchema["type"] !== "object") {
    throw new PabloError(
      HostErrorCode.OPEN_SCHEMA,
      `tool ${name}: the input schema must be an object schema`,
    );
  }
  const open = findOpenObject(inputJsonSchema);
  if (open) {
    throw new PabloError(
      HostErrorCode.OPEN_SCHEMA,
      `tool ${name}: input schema object at ${open} must set additionalProperties: false`,
      { tool: name, pointer: open },
    );
  }
  const outputJsonSchema = compilableOutput(definition, name, inputJsonSchema);
  const definitionHash = createHash("sha256")
    .update(
      canonicalJson({
        name,
        providerName,
        description: definition.description,
        inputSchema: inputJsonSchema,
        outputSchema: outputJsonSchema,
      }),
    )
    .digest("hex");
  return Object.freeze({
    definition,
    name,
    providerName,
    inputJsonSchema: Object.freeze(inputJsonSchema),
    definitionHash,
    validator: lazyValidator(definition.inputSchema),
    outputValidator: definition.outputSchema ? lazyValidator(definition.outputSchema) : undefined,
  });
}

/**
 * Validators compile on their first check; what would make compiling fail is refused here instead,
 * with the code compiling gave (an expression that does not compile, a cyclic output schema, which
 * cannot be serialized either). Returns the output schema as plain JSON Schema, or null.
 */
function compilableOutput(
  definition: AnyToolDefinition,
  name: string,
  inputJsonSchema: Record<string, unknown>,
): Record<string, unknown> | null {
  const refuse = (reason: string) =>
    new PabloError(HostErrorCode.INVALID_TOOL_DEFINITION, `tool ${name}: schema does not compile: ${reason}`);
  let output: Record<string, unknown> | null = null;
  try {
    if (definition.outputSchema) output = toJsonSchema(definition.outputSchema);
  } catch (error) {
    throw refuse(errorMessage(error));
  }
  const fault =
    findUncompilablePattern(inputJsonSchema) ?? (output ? findUncompilablePattern(output) : undefined);
  if (fault) throw refuse(`${fault.message} at ${fault.pointer}`);
  return output;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
