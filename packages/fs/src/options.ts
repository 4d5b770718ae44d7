import { HostErrorCode, PabloError, resolveSection, type SectionResult } from "@pablo/kernel";
import Type, { type Static } from "typebox";

const RuleId = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$",
  description: "Stable rule ID, cited in the audit notes of every write it lets through.",
});

function quota(description: string) {
  return Type.Optional(Type.Integer({ minimum: 0, description }));
}

/**
 * The `[options.fs]` section of deployment.toml. Closed: unknown keys are configuration errors.
 * Every field is optional; {@link resolveFsOptions} fills the defaults named in the descriptions.
 */
export const FsOptionsSchema = Type.Object(
  {
    revisions: Type.Optional(
      Type.Union([Type.Literal("explicit"), Type.Literal("tracked")], {
        description:
          "`explicit` (default): replacing a file needs its current revision. `tracked`: a write may omit " +
          "`expected_revision` for a file this session read and that has not changed since.",
      }),
    ),
    symlinks: Type.Optional(
      Type.Union([Type.Literal("refuse"), Type.Literal("follow-inside")], {
        description:
          "`refuse` (default): any symbolic link in a path is an error naming it. `follow-inside`: links are " +
          "followed when the target stays inside the workspace or scratch root, checked again at open.",
      }),
    ),
    outside_paths: Type.Optional(
      Type.Union([Type.Literal("deny"), Type.Literal("permission")], {
        description:
          "`deny` (default, and the cli preset): a path outside the workspace and scratch roots is refused. " +
          "`permission`: it is declared with root `external` and goes through the permission flow.",
      }),
    ),
    protected: Type.Optional(
      Type.Array(
        Type.String({ minLength: 1, pattern: "^[^/\\u0000]+$", description: "One path component." }),
        {
          description:
            "Path components fs.write and fs.edit refuse (default none), compared case-insensitively, in " +
            "addition to `.git` and `.pablo`.",
        },
      ),
    ),
    protected_grants: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: RuleId,
            path: Type.String({
              minLength: 1,
              description:
                "Workspace-relative or absolute path (and everything beneath it) the grant covers.",
            }),
          },
          { additionalProperties: false, description: "A rule that lifts the protected-component refusal." },
        ),
        {
          description:
            "Rules, by ID, that let fs.write and fs.edit touch protected components under their path " +
            "(default none). Authority layers still apply on top.",
        },
      ),
    ),
    quotas: Type.Optional(
      Type.Object(
        {
          file_bytes: quota("Largest file a tool reads, hashes, searches or writes. Unset is unlimited."),
          entries: quota(
            "Most directory entries one fs.list, fs.glob or fs.search call enumerates. Unset is unlimited.",
          ),
          search_depth: quota(
            "Deepest directory level fs.search and fs.glob descend to. Unset is unlimited.",
          ),
          scan_bytes: quota("Most file bytes one fs.search call reads. Unset is unlimited."),
        },
        { additionalProperties: false, description: "Per-call quotas; every one is unlimited when unset." },
      ),
    ),
    review_snapshot_bytes: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Largest previous content captured for rollback (default 16 MiB); a bigger file's change is not reversible.",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The section as written: every field optional. */
export type FsOptions = Static<typeof FsOptionsSchema>;
/** The section with its defaults filled in. */
export type ResolvedFsOptions = Required<FsOptions>;

export const DEFAULT_FS_OPTIONS: Readonly<ResolvedFsOptions> = Object.freeze({
  revisions: "explicit",
  symlinks: "refuse",
  outside_paths: "deny",
  protected: [],
  protected_grants: [],
  quotas: {},
  review_snapshot_bytes: 16 * 1024 * 1024,
});

/** Components fs.write and fs.edit always refuse unless a grant lifts them. */
export const ALWAYS_PROTECTED: readonly string[] = [".git", ".pablo"];

/**
 * Validates `[options.fs]` (absent means every default) with the kernel's `resolveSection` and fills
 * its defaults. Never throws: a bad section comes back as located errors for the host to show.
 */
export function parseFsOptions(section: unknown): SectionResult<ResolvedFsOptions> {
  const checked = resolveSection(FsOptionsSchema, section);
  if (!checked.ok) return checked;
  const defined = Object.fromEntries(
    Object.entries(checked.value).filter(([, value]) => value !== undefined),
  );
  return { ok: true, value: { ...DEFAULT_FS_OPTIONS, ...defined } };
}

/**
 * {@link parseFsOptions} for a host that has already validated the section (as the configuration
 * loader does). Throws {@link PabloError} `INVALID_OPTIONS` naming the first problem otherwise: a
 * section that skipped validation is a host fault, and a tool set must not start on it.
 */
export function resolveFsOptions(section: FsOptions = {}): ResolvedFsOptions {
  const parsed = parseFsOptions(section);
  if (parsed.ok) return parsed.value;
  const first = parsed.errors[0];
  throw new PabloError(HostErrorCode.INVALID_OPTIONS, `[options.fs] ${first?.path} ${first?.message}`, {
    errors: parsed.errors,
  });
}
