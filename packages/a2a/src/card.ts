import { type AgentCard, AgentCard as AgentCardCodec } from "@a2a-js/sdk";
import { compileValidator } from "@pablo/kernel";
import Type from "typebox";
import { A2aDiagnosticCode } from "./codes.js";
import { guardedFetch, MessageTooLarge, RedirectRefused } from "./guarded-fetch.js";

/** What Pablo reads from an admitted card. Nothing here widens authority: it is description only. */
export interface CardFacts {
  readonly card: AgentCard;
  readonly name: string;
  /** The card's description, clipped and stripped of control characters; shown labelled. */
  readonly description: string;
  /** Whether the card declares streaming; without it a call is send + bounded polling. */
  readonly streaming: boolean;
  readonly skills: readonly string[];
}

export type CardOutcome =
  | { readonly ok: true; readonly facts: CardFacts }
  | { readonly ok: false; readonly code: A2aDiagnosticCode; readonly message: string };

export interface CardRequest {
  readonly cardUrl: string;
  readonly endpoint: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly maxDescriptionChars: number;
  readonly signal?: AbortSignal;
}

/**
 * Fetches and checks one Agent Card: no credential, no redirect, at most `maxBytes` within
 * `timeoutMs`; then the A2A 1.0 card shape, and an interface that is exactly the configured
 * endpoint over JSON-RPC 1.0. Every failure is a diagnostic naming what was wrong (both URLs on
 * an endpoint mismatch), never a throw.
 */
export async function fetchCard(request: CardRequest): Promise<CardOutcome> {
  const fetched = await fetchCardJson(request);
  if (!fetched.ok) return fetched;
  return checkCard(fetched.json, request);
}

async function fetchCardJson(
  request: CardRequest,
): Promise<{ ok: true; json: unknown } | { ok: false; code: A2aDiagnosticCode; message: string }> {
  const unavailable = (message: string) =>
    ({
      ok: false,
      code: A2aDiagnosticCode.CARD_UNAVAILABLE,
      message: `card ${request.cardUrl}: ${message}`,
    }) as const;
  // The card fetch gets no bearer: the endpoint is given only so the guard can tell them apart.
  const fetchCardBytes = guardedFetch({ endpoint: request.endpoint, maxMessageBytes: request.maxBytes });
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  try {
    const response = await fetchCardBytes(request.cardUrl, {
      headers: { accept: "application/json" },
      signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return unavailable(`HTTP ${response.status}`);
    }
    const text = await response.text();
    try {
      return { ok: true, json: JSON.parse(text) };
    } catch {
      return {
        ok: false,
        code: A2aDiagnosticCode.CARD_INVALID,
        message: `card ${request.cardUrl} is not JSON`,
      };
    }
  } catch (error) {
    if (error instanceof RedirectRefused) return unavailable(error.message);
    if (error instanceof MessageTooLarge || causeIs(error, MessageTooLarge))
      return unavailable(`larger than ${request.maxBytes} bytes`);
    if (timeout.aborted) return unavailable(`no complete answer within ${request.timeoutMs} ms`);
    if (request.signal?.aborted) return unavailable("cancelled");
    return unavailable(error instanceof Error ? error.message : String(error));
  }
}

function causeIs(error: unknown, type: new (...args: never[]) => Error): boolean {
  return error instanceof Error && error.cause instanceof type;
}

/** The parts of the 1.0 wire shape Pablo relies on; the SDK's codec reads the rest. */
const WireCardSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 512, description: "The agent's name." }),
    description: Type.String({ description: "What the agent says it does (untrusted)." }),
    version: Type.String({ description: "The agent's own version." }),
    supportedInterfaces: Type.Array(
      Type.Object(
        {
          url: Type.String({ description: "Where this interface is served." }),
          protocolBinding: Type.String({ description: "JSONRPC, HTTP+JSON or GRPC." }),
          protocolVersion: Type.String({ description: "The A2A version spoken there." }),
        },
        { description: "One interface the agent serves." },
      ),
      { minItems: 1, maxItems: 64, description: "Every interface the agent serves." },
    ),
    capabilities: Type.Optional(
      Type.Object(
        { streaming: Type.Optional(Type.Boolean({ description: "Whether SSE streaming is offered." })) },
        { description: "Declared capabilities." },
      ),
    ),
    skills: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.String({ description: "Skill ID." }),
            name: Type.String({ description: "Skill name." }),
          },
          { description: "One advertised skill." },
        ),
        { maxItems: 256, description: "Advertised skills (description only)." },
      ),
    ),
  },
  { description: "An A2A 1.0 Agent Card, as far as Pablo reads it." },
);
const wireCard = compileValidator(WireCardSchema);

function checkCard(json: unknown, request: CardRequest): CardOutcome {
  const invalid = (message: string) =>
    ({
      ok: false,
      code: A2aDiagnosticCode.CARD_INVALID,
      message: `card ${request.cardUrl}: ${message}`,
    }) as const;
  if (json === null || typeof json !== "object" || Array.isArray(json)) return invalid("not a JSON object");
  const raw = json as Record<string, unknown>;
  if (
    !("supportedInterfaces" in raw) &&
    (typeof raw["url"] === "string" || typeof raw["protocolVersion"] === "string")
  ) {
    const version = typeof raw["protocolVersion"] === "string" ? raw["protocolVersion"] : "0.3";
    return invalid(
      `a 0.3-style card (protocolVersion ${version}, top-level url); this client speaks A2A 1.0 only`,
    );
  }
  if (!wireCard.check(json)) {
    const issues = wireCard.issues(json, 3).map((i) => `${i.path} ${i.message}`);
    return invalid(`not an A2A 1.0 card: ${issues.join("; ")}`);
  }
  const card = AgentCardCodec.fromJSON(json);
  const endpoint = new URL(request.endpoint).href;
  const match = card.supportedInterfaces.find(
    (i) =>
      sameHref(i.url, endpoint) &&
      i.protocolBinding === "JSONRPC" &&
      /^1\.0(\.\d+)?$/.test(i.protocolVersion),
  );
  if (!match) {
    const listed = card.supportedInterfaces.map(
      (i) => `${i.url} (${i.protocolBinding} ${i.protocolVersion})`,
    );
    return {
      ok: false,
      code: A2aDiagnosticCode.CARD_ENDPOINT_MISMATCH,
      message: `card ${request.cardUrl} does not list the configured endpoint ${endpoint} as JSON-RPC 1.0; it lists ${listed.join(", ")}`,
    };
  }
  return {
    ok: true,
    facts: {
      card,
      name: boundedText(card.name, 128),
      description: boundedText(card.description, request.maxDescriptionChars),
      streaming: card.capabilities?.streaming === true,
      skills: card.skills.slice(0, 32).map((s) => boundedText(s.name || s.id, 64)),
    },
  };
}

function sameHref(a: string, b: string): boolean {
  try {
    return new URL(a).href === b;
  } catch {
    return false;
  }
}

/** Untrusted text, made safe to show: control and format characters removed, length clipped. */
export function boundedText(text: string, maxChars: number): string {
  const clean = text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]+/gu, " ").trim();
  return clean.length <= maxChars ? clean : `${clean.slice(0, maxChars)}…`;
}
