import { StringRecord } from "@pablo/kernel";
import Type, { type Static } from "typebox";

/** Defaults for every bound of a remote call; each can be lowered (or raised) per remote. */
export const A2A_DEFAULTS = {
  cardTimeoutMs: 10_000,
  maxCardBytes: 256 * 1024,
  operationTimeoutMs: 600_000,
  cancelTimeoutMs: 5_000,
  pollIntervalMs: 1_000,
  maxEvents: 1_000,
  maxEventBytes: 1024 * 1024,
  maxArtifactBytes: 4 * 1024 * 1024,
  maxMessageChars: 64 * 1024,
  maxDescriptionChars: 1_000,
} as const;

const positive = (description: string, maximum: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum, description }));

/** `[options.a2a.remotes.NAME]`: one remote agent, its two exact URLs and its bounds. */
export const A2aRemoteSchema = Type.Object(
  {
    card_url: Type.String({
      pattern: "^https?://",
      description: "Exact Agent Card URL; fetched without credentials, redirects refused.",
    }),
    endpoint: Type.String({
      pattern: "^https?://",
      description: "Exact JSON-RPC endpoint; the card must list it as a JSON-RPC 1.0 interface.",
    }),
    bearer: Type.Optional(
      Type.String({
        description: "Credential name with consumer a2a.bearer; sent only to the endpoint.",
      }),
    ),
    allow_loopback_http: Type.Optional(
      Type.Boolean({
        description: "Allow plain http to a literal loopback address (127.0.0.0/8, [::1]). Default false.",
      }),
    ),
    risk: Type.Optional(
      Type.Union([Type.Literal("medium"), Type.Literal("high")], {
        description: "The tool's risk; medium unless the deployment says high.",
      }),
    ),
    card_timeout_ms: positive("Deadline of the card fetch. Default 10 s.", 120_000),
    max_card_bytes: positive("Largest card accepted. Default 256 KiB.", 4 * 1024 * 1024),
    operation_timeout_ms: positive("Deadline of one call, within the run's. Default 10 min.", 3_600_000),
    cancel_timeout_ms: positive("Deadline of the CancelTask sent on cancellation. Default 5 s.", 60_000),
    poll_interval_ms: positive("GetTask interval when the card does not stream. Default 1 s.", 60_000),
    max_events: positive("Most events (or polls) one call reads. Default 1000.", 1_000_000),
    max_event_bytes: positive("Largest single event or response. Default 1 MiB.", 64 * 1024 * 1024),
    max_artifact_bytes: positive("Largest artifact retained. Default 4 MiB.", 64 * 1024 * 1024),
  },
  { additionalProperties: false, description: "One remote A2A agent offered as the tool a2a/NAME." },
);

/** `[options.a2a.serve]`: what `pablo a2a serve` advertises and requires. */
export const A2aServeSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 128, description: "The served card's name." })),
    description: Type.Optional(
      Type.String({ maxLength: 2000, description: "The served card's description; no secrets, no paths." }),
    ),
    bearer: Type.Optional(
      Type.String({
        description: "Credential name with consumer a2a.serve: the token callers must send as Bearer.",
      }),
    ),
  },
  { additionalProperties: false, description: "The A2A server `pablo a2a serve` runs." },
);

/** `[options.a2a]`: remote agents and the served agent. */
export const A2aOptionsSchema = Type.Object(
  {
    remotes: Type.Optional(
      StringRecord(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), A2aRemoteSchema, {
        description: "Remote agents by name; each becomes the deferred tool a2a/NAME.",
      }),
    ),
    serve: Type.Optional(A2aServeSchema),
  },
  { additionalProperties: false, description: "A2A remotes and `pablo a2a serve`." },
);

export type A2aRemoteConfig = Static<typeof A2aRemoteSchema>;
export type A2aServeConfig = Static<typeof A2aServeSchema>;
export type A2aOptions = Static<typeof A2aOptionsSchema>;
