import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { type AuthorityLayer, defineLayer, PabloError, resolveSection } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { type ConfigError, ConfigErrorCode, type ConfigResult } from "./errors.js";
import type { NetworkOptions, PolicyOptions } from "./sections.js";

/** The CLI flags that narrow authority, each becoming a rule of the `cli-flags` layer. */
export interface CliFlags {
  readonly allowWrite: boolean;
  readonly noShell: boolean;
  readonly noFilesystem: boolean;
}

/**
 * The `cli-flags` layer: without `--allow-write` the `fs.write` effect is denied; `--no-shell`
 * denies the `process` effect; `--no-filesystem` denies filesystem reads and writes. Flags only
 * ever add denials, so no flag can widen what another layer refused.
 */
export function flagsLayer(flags: CliFlags): AuthorityLayer {
  const deny: { id: string; match: string }[] = [];
  if (!flags.allowWrite) deny.push({ id: "cli.no-allow-write", match: "fs.write" });
  if (flags.noShell) deny.push({ id: "cli.no-shell", match: "process" });
  if (flags.noFilesystem) {
    deny.push({ id: "cli.no-filesystem.read", match: "fs.read" });
    if (flags.allowWrite) deny.push({ id: "cli.no-filesystem.write", match: "fs.write" });
  }
  return defineLayer({ id: "cli-flags", description: "command-line flags", effect: { deny } });
}

/** The deployment's `[options.policy]` and `[options.network]` as one `deployment` layer. */
export function deploymentLayer(
  policy: PolicyOptions | undefined,
  network: NetworkOptions | undefined,
  id = "deployment",
): AuthorityLayer {
  return defineLayer({
    id,
    description: "deployment.toml",
    ...(policy ?? {}),
    ...(network ? { net: network } : {}),
  });
}

/**
 * The static JSON policy of `--policy PATH`: exact tool names, launcher paths and filesystem roots,
 * each rule with a stable ID. Relative paths resolve against the policy file's directory.
 */
export const JsonPolicySchema = Type.Object(
  {
    id: Type.Optional(Type.String({ description: "Layer ID cited in decisions (default: policy-file)." })),
    tools: Type.Optional(
      ruleLists(
        Type.Object(
          { id: Type.String(), name: Type.String({ pattern: "^[^*]+$" }) },
          { additionalProperties: false },
        ),
      ),
    ),
    launchers: Type.Optional(
      ruleLists(Type.Object({ id: Type.String(), path: Type.String() }, { additionalProperties: false })),
    ),
    read_roots: Type.Optional(
      ruleLists(Type.Object({ id: Type.String(), path: Type.String() }, { additionalProperties: false })),
    ),
    write_roots: Type.Optional(
      ruleLists(Type.Object({ id: Type.String(), path: Type.String() }, { additionalProperties: false })),
    ),
  },
  { additionalProperties: false },
);
export type JsonPolicy = Static<typeof JsonPolicySchema>;

export function loadJsonPolicy(file: string): ConfigResult<AuthorityLayer> {
  const error = (message: string, keyPath = ""): ConfigResult<AuthorityLayer> => ({
    ok: false,
    errors: [{ code: ConfigErrorCode.POLICY, file, line: 0, keyPath, message } satisfies ConfigError],
  });
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    return error(`cannot read the policy: ${e instanceof Error ? e.message : String(e)}`);
  }
  const checked = resolveSection(JsonPolicySchema, raw);
  if (!checked.ok) {
    const first = checked.errors[0];
    return error(first?.message ?? "invalid", first?.keys.join(".") ?? "");
  }
  const policy = raw as JsonPolicy;
  const base = dirname(resolve(file));
  const paths = (list: { id: string; path: string }[] | undefined) =>
    list?.map((r) => ({ id: r.id, path: isAbsolute(r.path) ? r.path : resolve(base, r.path) }));
  const pathPolicy = (p: JsonPolicy["read_roots"]) =>
    p && {
      ...(p.default ? { default: p.default } : {}),
      allow: paths(p.allow) ?? [],
      deny: paths(p.deny) ?? [],
    };
  try {
    return {
      ok: true,
      value: defineLayer({
        id: policy.id ?? "policy-file",
        description: file,
        ...(policy.tools
          ? {
              tool: {
                ...(policy.tools.default ? { default: policy.tools.default } : {}),
                allow: (policy.tools.allow ?? []).map((r) => ({ id: r.id, match: r.name })),
                deny: (policy.tools.deny ?? []).map((r) => ({ id: r.id, match: r.name })),
              },
            }
          : {}),
        ...(policy.launchers ? { executable: pathPolicy(policy.launchers) } : {}),
        ...(policy.read_roots ? { "fs.read": pathPolicy(policy.read_roots) } : {}),
        ...(policy.write_roots ? { "fs.write": pathPolicy(policy.write_roots) } : {}),
      } as AuthorityLayer),
    };
  } catch (e) {
    return error(e instanceof PabloError ? e.message : String(e));
  }
}

function ruleLists<R extends ReturnType<typeof Type.Object>>(rule: R) {
  return Type.Object(
    {
      default: Type.Optional(Type.Union([Type.Literal("allow"), Type.Literal("deny")])),
      allow: Type.Optional(Type.Array(rule)),
      deny: Type.Optional(Type.Array(rule)),
    },
    { additionalProperties: false },
  );
}
