import type {
  AgentContext,
  ClientCapabilities,
  CreateElicitationRequest,
  CreateElicitationResponse,
  ElicitationPropertySchema,
} from "@agentclientprotocol/sdk";
import type {
  ElicitationAnswer,
  ElicitationField,
  ElicitationRequest,
  ElicitationValue,
  PermissionBroker,
} from "@pablo/kernel";

/** Where one session's questions go: the editor's connection and the ACP session they belong to. */
export interface ElicitationChannel {
  readonly client: AgentContext;
  readonly sessionId: string;
  /** The tool call a question from `server` is about, when exactly one of its calls is running. */
  elicitingCall(server: string): string | undefined;
  /** The running prompt's signal, if one runs: its cancel withdraws the questions asked during it. */
  readonly turn: AbortSignal | undefined;
}

export type ElicitHandler = NonNullable<PermissionBroker["elicit"]>;

/**
 * Whether the editor said at `initialize` that it renders `elicitation/create` forms
 * (`clientCapabilities.elicitation.form`). Only then does a session's broker get `elicit`, and only
 * then are MCP servers told they may ask; URL mode is never used.
 */
export function canElicit(capabilities: ClientCapabilities): boolean {
  return capabilities.elicitation?.form !== undefined && capabilities.elicitation.form !== null;
}

const DECLINE: ElicitationAnswer = { action: "decline" };
const CANCEL: ElicitationAnswer = { action: "cancel" };
/** Longest wait a timer can hold; a later deadline still ends when the caller's signal aborts. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The `elicit` of a session's broker: each question becomes `elicitation/create` (form mode) on the
 * editor's connection for the session `route` names, tied to the asking server's running tool call
 * when there is exactly one. When `signal` aborts, or the session's prompt is cancelled (the MCP
 * client's own cancel does not reach a server's first request: typescript-sdk#2283), the request
 * is withdrawn with `$/cancel_request` and the answer is cancel at once; at the request's deadline
 * it is withdrawn and declined. No
 * session yet, a failed request and an answer that is not accept, decline or cancel all decline.
 * The values answered are returned to the caller only: nothing here records them.
 */
export function acpElicit(route: () => ElicitationChannel | undefined): ElicitHandler {
  return async (request, signal) => {
    const channel = route();
    const turn = channel?.turn;
    if (signal.aborted || turn?.aborted) return CANCEL;
    if (!channel) return DECLINE;
    const withdraw = new AbortController();
    let settle: (answer: ElicitationAnswer) => void = () => undefined;
    const ended = new Promise<ElicitationAnswer>((resolve) => {
      settle = resolve;
    });
    const onAbort = () => {
      settle(CANCEL);
      withdraw.abort();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    turn?.addEventListener("abort", onAbort, { once: true });
    const timer = setTimeout(
      () => {
        settle(DECLINE);
        withdraw.abort();
      },
      Math.min(Math.max(0, request.deadline - Date.now()), MAX_TIMER_MS),
    );
    try {
      const asked = channel.client
        .request("elicitation/create", createRequest(channel, request), {
          cancellationSignal: withdraw.signal,
          stopWaitingOnCancel: true,
        })
        .then(answerOf, () => DECLINE);
      return await Promise.race([ended, asked]);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      turn?.removeEventListener("abort", onAbort);
    }
  };
}

/** The ACP request for one question: the server's message and its fields as a flat form schema. */
export function createRequest(
  channel: ElicitationChannel,
  request: ElicitationRequest,
): CreateElicitationRequest {
  const toolCallId = channel.elicitingCall(request.server);
  return {
    mode: "form",
    sessionId: channel.sessionId,
    ...(toolCallId ? { toolCallId } : {}),
    message: request.message,
    requestedSchema: {
      type: "object",
      title: `Question from ${request.server}`,
      properties: Object.fromEntries(
        Object.entries(request.fields).map(([name, field]) => [name, propertyOf(field)]),
      ),
      required: [...request.required],
    },
    _meta: { pablo: { server: request.server, deadline: request.deadline } },
  };
}

/** One field in ACP's property schema: enums as `enum` or titled `oneOf`, multiselects as arrays. */
export function propertyOf(field: ElicitationField): ElicitationPropertySchema {
  const text = {
    ...(field.title !== undefined ? { title: field.title } : {}),
    ...(field.description !== undefined ? { description: field.description } : {}),
  };
  const optional = <K extends string, V>(key: K, value: V | undefined) =>
    (value !== undefined ? { [key]: value } : {}) as Partial<Record<K, V>>;
  switch (field.type) {
    case "string":
      return {
        type: "string",
        ...text,
        ...optional("minLength", field.minLength),
        ...optional("maxLength", field.maxLength),
        ...optional("format", field.format),
        ...optional("default", field.default),
      };
    case "number":
    case "integer":
      return {
        type: field.type,
        ...text,
        ...optional("minimum", field.minimum),
        ...optional("maximum", field.maximum),
        ...optional("default", field.default),
      };
    case "boolean":
      return { type: "boolean", ...text, ...optional("default", field.default) };
    case "enum": {
      const titles = field.optionTitles;
      return {
        type: "string",
        ...text,
        ...(titles
          ? { oneOf: field.options.map((value, i) => ({ const: value, title: titles[i] ?? value })) }
          : { enum: [...field.options] }),
        ...optional("default", field.default),
      };
    }
    case "multiselect": {
      const titles = field.optionTitles;
      return {
        type: "array",
        ...text,
        items: titles
          ? { anyOf: field.options.map((value, i) => ({ const: value, title: titles[i] ?? value })) }
          : { type: "string", enum: [...field.options] },
        ...optional("minItems", field.minItems),
        ...optional("maxItems", field.maxItems),
        ...optional("default", field.default ? [...field.default] : undefined),
      };
    }
  }
}

/**
 * The editor's answer as the kernel's: accept with its content (none is an empty form), decline,
 * cancel; a custom action, or content that is not text, numbers, yes/no or lists of text, declines.
 * Whether the values fit the fields is checked by the MCP client, which declines what does not.
 */
export function answerOf(response: CreateElicitationResponse): ElicitationAnswer {
  switch (response.action) {
    case "accept": {
      const content = (response as { content?: Record<string, unknown> | null }).content ?? {};
      const values = Object.entries(content);
      if (!values.every(([, value]) => isValue(value))) return DECLINE;
      return { action: "accept", content: Object.fromEntries(values) as Record<string, ElicitationValue> };
    }
    case "decline":
      return DECLINE;
    case "cancel":
      return CANCEL;
    default:
      return DECLINE;
  }
}

function isValue(value: unknown): value is ElicitationValue {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}
