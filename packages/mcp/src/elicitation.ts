import type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationRequest,
  ElicitationValue,
} from "@pablo/kernel";
import { PERMISSION_TIMEOUT_MS } from "@pablo/kernel";

/** The host's question facility, `PermissionBroker.elicit` in practice. */
export type McpElicitHandler = (
  request: ElicitationRequest,
  signal: AbortSignal,
) => Promise<ElicitationAnswer>;

/** Bounds on what a server may ask and what is sent back; beyond them the question is refused. */
export const ELICITATION_LIMITS = {
  messageChars: 4_000,
  properties: 32,
  textChars: 500,
  answerBytes: 64_000,
} as const;

/** The MCP answer: `content` only with `accept`. Values never leave this function except to the server. */
export type McpElicitResult =
  | { action: "accept"; content: Record<string, ElicitationValue> }
  | { action: "decline" }
  | { action: "cancel" };

/**
 * Turns one `elicitation/create` (form mode) into a host question: the schema must be the flat
 * restricted form and within {@link ELICITATION_LIMITS}, else it is declined without asking; the
 * answer gets the schema's defaults for fields it leaves out (SEP-1034) and is checked against
 * the schema; no answer within `timeoutMs`, or the call's cancellation, declines.
 */
export async function answerElicitation(
  server: string,
  params: { message?: unknown; requestedSchema?: unknown; mode?: unknown },
  ask: McpElicitHandler,
  signal: AbortSignal,
  timeoutMs: number = PERMISSION_TIMEOUT_MS,
): Promise<McpElicitResult> {
  if (params.mode !== undefined && params.mode !== "form") return { action: "decline" };
  const parsed = parseSchema(params.requestedSchema);
  const message = typeof params.message === "string" ? params.message : "";
  if (typeof parsed === "string" || message.length > ELICITATION_LIMITS.messageChars)
    return { action: "decline" };
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const request: ElicitationRequest = {
      server,
      message,
      fields: parsed.fields,
      required: parsed.required,
      deadline: Date.now() + timeoutMs,
    };
    const answer = await Promise.race([
      ask(request, controller.signal).catch((): ElicitationAnswer => ({ action: "cancel" })),
      new Promise<ElicitationAnswer>((resolve) => {
        if (controller.signal.aborted) resolve({ action: "decline" });
        controller.signal.addEventListener("abort", () => resolve({ action: "decline" }), { once: true });
      }),
    ]);
    if (controller.signal.aborted) return { action: signal.aborted ? "cancel" : "decline" };
    if (answer.action !== "accept") return { action: answer.action };
    const content = withDefaults(parsed.fields, answer.content);
    return checkContent(parsed.fields, parsed.required, content)
      ? { action: "accept", content }
      : { action: "decline" };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener("abort", onAbort);
  }
}

interface ParsedSchema {
  readonly fields: Record<string, ElicitationField>;
  readonly required: string[];
}

/** The restricted flat schema, or why it is not one. */
export function parseSchema(schema: unknown): ParsedSchema | string {
  if (!isRecord(schema) || schema.type !== "object" || !isRecord(schema.properties))
    return "not an object schema";
  const entries = Object.entries(schema.properties);
  if (entries.length > ELICITATION_LIMITS.properties) return "too many properties";
  const fields: Record<string, ElicitationField> = {};
  for (const [name, raw] of entries) {
    const field = parseField(raw);
    if (typeof field === "string") return `property ${name}: ${field}`;
    fields[name] = field;
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : [];
  return { fields, required };
}

function parseField(raw: unknown): ElicitationField | string {
  if (!isRecord(raw)) return "not a schema";
  const text = {
    ...(short(raw.title) ? { title: raw.title as string } : {}),
    ...(short(raw.description) ? { description: raw.description as string } : {}),
  };
  const single = parseOptions(raw);
  if (single !== undefined) {
    if (typeof single === "string") return single;
    return {
      type: "enum",
      ...text,
      ...single,
      ...(typeof raw.default === "string" ? { default: raw.default } : {}),
    };
  }
  if (raw.type === "array") {
    const many = isRecord(raw.items) ? parseOptions(raw.items) : undefined;
    if (many === undefined) return "an array field must be a multiselect of string options";
    if (typeof many === "string") return many;
    const defaults = Array.isArray(raw.default) ? raw.default : undefined;
    return {
      type: "multiselect",
      ...text,
      ...many,
      ...(typeof raw.minItems === "number" ? { minItems: raw.minItems } : {}),
      ...(typeof raw.maxItems === "number" ? { maxItems: raw.maxItems } : {}),
      ...(defaults?.every((d) => typeof d === "string") ? { default: defaults as string[] } : {}),
    };
  }
  if (raw.type === "string") {
    const format = raw.format;
    return {
      type: "string",
      ...text,
      ...(typeof raw.minLength === "number" ? { minLength: raw.minLength } : {}),
      ...(typeof raw.maxLength === "number" ? { maxLength: raw.maxLength } : {}),
      ...(format === "email" || format === "uri" || format === "date" || format === "date-time"
        ? { format }
        : {}),
      ...(typeof raw.default === "string" && short(raw.default) ? { default: raw.default } : {}),
    };
  }
  if (raw.type === "number" || raw.type === "integer") {
    return {
      type: raw.type,
      ...text,
      ...(typeof raw.minimum === "number" ? { minimum: raw.minimum } : {}),
      ...(typeof raw.maximum === "number" ? { maximum: raw.maximum } : {}),
      ...(typeof raw.default === "number" ? { default: raw.default } : {}),
    };
  }
  if (raw.type === "boolean")
    return {
      type: "boolean",
      ...text,
      ...(typeof raw.default === "boolean" ? { default: raw.default } : {}),
    };
  return "only string, number, integer, boolean and enum fields are allowed";
}

/**
 * The options of an enum schema, in the three spellings the spec allows: `enum` (with the legacy
 * `enumNames` labels), or `oneOf`/`anyOf` of `{ const, title }`. Undefined when it is no enum.
 */
function parseOptions(
  raw: Record<string, unknown>,
): { options: string[]; optionTitles?: string[] } | string | undefined {
  const titled = Array.isArray(raw.oneOf) ? raw.oneOf : Array.isArray(raw.anyOf) ? raw.anyOf : undefined;
  const options = Array.isArray(raw.enum)
    ? raw.enum
    : titled?.map((o) => (isRecord(o) ? o.const : undefined));
  if (!options) return undefined;
  if (!options.every((o) => typeof o === "string" && o.length <= ELICITATION_LIMITS.textChars))
    return "enum values must be short strings";
  if (options.length > ELICITATION_LIMITS.properties * 4) return "too many enum values";
  const titles = Array.isArray(raw.enum)
    ? raw.enumNames
    : titled?.map((o) => (isRecord(o) ? o.title : undefined));
  const optionTitles =
    Array.isArray(titles) && titles.length === options.length && titles.every((t) => short(t))
      ? (titles as string[])
      : undefined;
  return { options: options as string[], ...(optionTitles ? { optionTitles } : {}) };
}

function withDefaults(fields: Record<string, ElicitationField>, content: Record<string, ElicitationValue>) {
  const out: Record<string, ElicitationValue> = {};
  for (const [name, field] of Object.entries(fields)) {
    const value = content[name] ?? field.default;
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** Whether an answer fits the schema and the size bound. */
export function checkContent(
  fields: Record<string, ElicitationField>,
  required: readonly string[],
  content: Record<string, unknown>,
): boolean {
  if (Buffer.byteLength(JSON.stringify(content)) > ELICITATION_LIMITS.answerBytes) return false;
  if (required.some((name) => content[name] === undefined)) return false;
  return Object.entries(content).every(([name, value]) => {
    const field = fields[name];
    return field !== undefined && fieldAccepts(field, value);
  });
}

/** Whether one value fits one field; the terminal card uses it to check what is typed. */
export function fieldAccepts(field: ElicitationField, value: unknown): boolean {
  switch (field.type) {
    case "string":
      return (
        typeof value === "string" &&
        value.length <= ELICITATION_LIMITS.textChars &&
        (field.minLength === undefined || value.length >= field.minLength) &&
        (field.maxLength === undefined || value.length <= field.maxLength) &&
        (field.format === undefined || FORMATS[field.format](value))
      );
    case "number":
    case "integer":
      return (
        typeof value === "number" &&
        Number.isFinite(value) &&
        (field.type === "number" || Number.isInteger(value)) &&
        (field.minimum === undefined || value >= field.minimum) &&
        (field.maximum === undefined || value <= field.maximum)
      );
    case "boolean":
      return typeof value === "boolean";
    case "enum":
      return typeof value === "string" && field.options.includes(value);
    case "multiselect":
      return (
        Array.isArray(value) &&
        value.every((v) => typeof v === "string" && field.options.includes(v)) &&
        new Set(value).size === value.length &&
        (field.minItems === undefined || value.length >= field.minItems) &&
        (field.maxItems === undefined || value.length <= field.maxItems)
      );
  }
}

/** Checks for the string formats the schema allows: the shape, not that the address exists. */
const FORMATS: Readonly<Record<"email" | "uri" | "date" | "date-time", (text: string) => boolean>> = {
  email: (text) => /^[^\s@]+@[^\s@]+$/.test(text),
  uri: (text) => URL.canParse(text),
  date: (text) => /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)),
  "date-time": (text) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(text) &&
    !Number.isNaN(Date.parse(text)),
};

function short(value: unknown): boolean {
  return typeof value === "string" && value.length <= ELICITATION_LIMITS.textChars;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
