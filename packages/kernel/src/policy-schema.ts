import Type, { type Static } from "typebox";

const RuleId = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
  description: "Stable rule ID, cited by every decision the rule makes.",
});

/** Matches a name exactly, or with `*` standing for any run of characters. */
export const NameRule = Type.Object(
  { id: RuleId, match: Type.String({ minLength: 1, description: "Exact name, or a pattern with `*`." }) },
  { additionalProperties: false },
);

/** Matches an absolute path and everything beneath it, by whole components. */
export const PathRule = Type.Object(
  { id: RuleId, path: Type.String({ minLength: 1, description: "Absolute path." }) },
  { additionalProperties: false },
);

/** Matches a simple command by absolute executable and literal arguments. */
export const CommandRule = Type.Object(
  {
    id: RuleId,
    executable: Type.String({ minLength: 1, description: "Absolute path of the executable." }),
    args: Type.Array(Type.String(), { description: "Literal arguments after the command word." }),
    match: Type.Union([Type.Literal("prefix"), Type.Literal("exact")], {
      description: "`prefix` allows any arguments after `args`; `exact` only exactly `args`.",
    }),
  },
  { additionalProperties: false },
);

/** Matches URLs under a prefix, compared on the parsed URL. */
export const UrlRule = Type.Object(
  { id: RuleId, prefix: Type.String({ minLength: 1, description: "URL prefix: scheme, host, port, path." }) },
  { additionalProperties: false },
);

export const DefaultVerdict = Type.Union([Type.Literal("allow"), Type.Literal("deny")]);

function dimensionPolicy<R extends typeof NameRule | typeof PathRule | typeof CommandRule | typeof UrlRule>(
  rule: R,
) {
  return Type.Object(
    {
      default: Type.Optional(DefaultVerdict),
      allow: Type.Optional(Type.Array(rule)),
      deny: Type.Optional(Type.Array(rule)),
    },
    { additionalProperties: false },
  );
}

export const NamePolicy = dimensionPolicy(NameRule);
export const PathPolicy = dimensionPolicy(PathRule);
export const CommandPolicy = dimensionPolicy(CommandRule);
export const UrlPolicy = dimensionPolicy(UrlRule);

/** One authority layer: an ID and, per dimension, a default with allow and deny rules. */
export const AuthorityLayerSchema = Type.Object(
  {
    id: RuleId,
    description: Type.Optional(Type.String()),
    /** Immutable layers (a distribution ceiling) are marked for explanations; all layers intersect. */
    immutable: Type.Optional(Type.Boolean()),
    tool: Type.Optional(NamePolicy),
    effect: Type.Optional(NamePolicy),
    "fs.read": Type.Optional(PathPolicy),
    "fs.write": Type.Optional(PathPolicy),
    executable: Type.Optional(PathPolicy),
    "mcp.launcher": Type.Optional(PathPolicy),
    command: Type.Optional(CommandPolicy),
    net: Type.Optional(UrlPolicy),
    "mcp.server": Type.Optional(NamePolicy),
    "mcp.tool": Type.Optional(NamePolicy),
    credential: Type.Optional(NamePolicy),
    skill: Type.Optional(NamePolicy),
    child: Type.Optional(NamePolicy),
  },
  { additionalProperties: false },
);

export type NameRule = Static<typeof NameRule>;
export type PathRule = Static<typeof PathRule>;
export type CommandRule = Static<typeof CommandRule>;
export type UrlRule = Static<typeof UrlRule>;
export type AuthorityLayer = Static<typeof AuthorityLayerSchema>;
export type AnyRule = NameRule | PathRule | CommandRule | UrlRule;
export interface DimensionPolicy {
  readonly default?: "allow" | "deny";
  readonly allow?: readonly AnyRule[];
  readonly deny?: readonly AnyRule[];
}
