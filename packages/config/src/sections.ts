import { NamePolicy, PathPolicy, StringRecord, UrlPolicy } from "@pablo/kernel";
import Type, { type Static, type TSchema } from "typebox";

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Positive = (description: string) => Type.Integer({ minimum: 1, description });

/** `[options.network]`: the network-destination dimension, URL prefixes compared on the parsed URL. */
export const NetworkOptionsSchema = Type.Object(
  {
    default: Type.Optional(
      Type.Union([Type.Literal("allow"), Type.Literal("deny")], {
        description: "Verdict when allow is empty.",
      }),
    ),
    allow: Type.Optional(UrlPolicy.properties.allow),
    deny: Type.Optional(UrlPolicy.properties.deny),
  },
  {
    additionalProperties: false,
    description: "Network destinations: { id, prefix } URL-prefix rules; deny wins.",
  },
);

/** `[options.limits]`: the host limits of seed 000. Omitted counts are unlimited; zero disables. */
export const LimitsOptionsSchema = Type.Object(
  {
    run_deadline_ms: Type.Optional(Positive("Run deadline (default 3600000).")),
    shell_deadline_ms: Type.Optional(
      Type.Integer({
        minimum: 1000,
        description:
          "Longest shell command, the outer cap of every timeout_ms (default 900000; at least 1000, the shortest timeout a call may ask for).",
      }),
    ),
    tool_argument_bytes: Type.Optional(Positive("Largest tool-argument JSON (default 1 MiB).")),
    tool_result_bytes: Type.Optional(
      Type.Integer({ minimum: 512, description: "Largest serialized tool result (default 8 MiB)." }),
    ),
    request_context_bytes: Type.Optional(Positive("Largest model request (default 32 MiB).")),
    model_output_bytes: Type.Optional(Positive("Largest model output (default 4 MiB).")),
    native_events: Type.Optional(Count("Native events per run (default 1000000).")),
    model_calls: Type.Optional(Count("Model calls per run; omit for unlimited, 0 disables.")),
    tool_calls: Type.Optional(Count("Tool calls per run; omit for unlimited, 0 disables.")),
  },
  { additionalProperties: false },
);

function PermissionModeSchema(description: string) {
  return Type.Union(
    [Type.Literal("ask"), Type.Literal("accept-edits"), Type.Literal("auto"), Type.Literal("read-only")],
    { description },
  );
}

/** `[options.permission]`: how high-risk calls are approved. */
export const PermissionOptionsSchema = Type.Object(
  {
    mode: Type.Optional(
      PermissionModeSchema("Permission mode when --permission is not given (default ask)."),
    ),
    loosest: Type.Optional(
      PermissionModeSchema("The loosest mode --permission may select; a looser flag is raised to this one."),
    ),
    grants: Type.Optional(
      Type.Array(Type.String(), { description: "Effects the read-only profile still allows." }),
    ),
    timeout_ms: Type.Optional(
      Positive("How long a permission request waits before it is denied (default 120000)."),
    ),
  },
  { additionalProperties: false },
);

/** `[options.modes]`: the operating mode a task starts in. */
export const ModesOptionsSchema = Type.Object(
  { default: Type.Optional(Type.Union([Type.Literal("agent"), Type.Literal("plan"), Type.Literal("goal")])) },
  { additionalProperties: false },
);

/** `[options.policy]`: the deployment's own authority rules, one kernel layer. */
export const PolicyOptionsSchema = Type.Object(
  {
    tool: Type.Optional(NamePolicy),
    effect: Type.Optional(NamePolicy),
    "fs.read": Type.Optional(PathPolicy),
    "fs.write": Type.Optional(PathPolicy),
    executable: Type.Optional(PathPolicy),
    "mcp.server": Type.Optional(NamePolicy),
    "mcp.tool": Type.Optional(NamePolicy),
    credential: Type.Optional(NamePolicy),
    skill: Type.Optional(NamePolicy),
    child: Type.Optional(NamePolicy),
  },
  {
    additionalProperties: false,
    description: "Rules with stable IDs; deny wins, a non-empty allow list denies the rest.",
  },
);

/** `[options.audit]`: where records go. The default is the user's state directory, never the workspace. */
export const AuditOptionsSchema = Type.Object(
  {
    path: Type.Optional(
      Type.String({ description: "Absolute path or binding reference of the audit file (JSONL or SQLite)." }),
    ),
    store: Type.Optional(
      Type.Union([Type.Literal("jsonl"), Type.Literal("sqlite")], {
        description:
          "Where records are kept: a JSONL file (default) or a SQLite database; both hash-chained.",
      }),
    ),
    accesses: Type.Optional(
      Type.Union([Type.Literal("redacted"), Type.Literal("none")], {
        description:
          "Keep each call's declared paths, commands and URLs (secrets redacted) for what-if replay, or none.",
      }),
    ),
    capture_content: Type.Optional(
      Type.Boolean({ description: "Let native events carry arguments and results." }),
    ),
  },
  { additionalProperties: false },
);

/** `[options.a2a.remotes.NAME]` until @pablo/a2a brings its own section. */
export const A2aOptionsSchema = Type.Object(
  {
    remotes: Type.Optional(
      StringRecord(
        Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }),
        Type.Object(
          {
            card_url: Type.String({
              pattern: "^https?://",
              description: "Exact Agent Card URL; fetched without credentials.",
            }),
            endpoint: Type.String({ pattern: "^https?://", description: "Exact JSON-RPC endpoint." }),
            bearer: Type.Optional(Type.String({ description: "Credential name with consumer a2a.bearer." })),
            allow_loopback_http: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { additionalProperties: false },
);

/** `[credentials.NAME]`: a secret, its one consumer, and where its value comes from. */
export const CredentialSchema = Type.Object(
  {
    consumer: Type.String({
      description: "The one consumer allowed to use it, e.g. mcp.environment, mcp.headers, a2a.bearer.",
    }),
    destination: Type.Optional(
      Type.String({ description: "Exact destination; defaults to the one place that references it." }),
    ),
    sources: Type.Array(
      Type.Union([
        Type.Object(
          { kind: Type.Literal("environment"), name: Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_]*$" }) },
          { additionalProperties: false },
        ),
        Type.Object({ kind: Type.Literal("file"), path: Type.String() }, { additionalProperties: false }),
      ]),
      { minItems: 1, description: "Tried in order; the first available value is used." },
    ),
  },
  { additionalProperties: false },
);
export type CredentialConfig = Static<typeof CredentialSchema>;

/** Sections every distribution gets from @pablo/config itself. */
export const BUILTIN_SECTIONS: Readonly<Record<string, TSchema>> = {
  network: NetworkOptionsSchema,
  limits: LimitsOptionsSchema,
  permission: PermissionOptionsSchema,
  modes: ModesOptionsSchema,
  policy: PolicyOptionsSchema,
  audit: AuditOptionsSchema,
  a2a: A2aOptionsSchema,
};

/**
 * The schema of a whole deployment file: `[credentials.*]` and `[options.*]`, where each options
 * section is the schema its package exports. A new package brings its section by being passed in.
 */
export function deploymentSchema(sections: Readonly<Record<string, TSchema>>): TSchema {
  const all = { ...BUILTIN_SECTIONS, ...sections };
  const options: Record<string, TSchema> = {};
  for (const [name, schema] of Object.entries(all)) options[name] = Type.Optional(schema);
  return Type.Object(
    {
      credentials: Type.Optional(
        StringRecord(Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }), CredentialSchema),
      ),
      options: Type.Optional(Type.Object(options, { additionalProperties: false })),
    },
    { additionalProperties: false, title: "Pablo deployment.toml" },
  );
}

export type NetworkOptions = Static<typeof NetworkOptionsSchema>;
export type LimitsOptions = Static<typeof LimitsOptionsSchema>;
export type PermissionOptions = Static<typeof PermissionOptionsSchema>;
export type ModesOptions = Static<typeof ModesOptionsSchema>;
export type PolicyOptions = Static<typeof PolicyOptionsSchema>;
export type AuditOptions = Static<typeof AuditOptionsSchema>;
export type A2aOptions = Static<typeof A2aOptionsSchema>;
