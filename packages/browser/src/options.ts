import { HostErrorCode, PabloError, resolveSection, type SectionResult } from "@pablo/kernel";
import Type, { type Static } from "typebox";

/**
 * The `[options.browser]` section of deployment.toml. Closed: unknown keys are configuration
 * errors. Every field is optional; {@link resolveBrowserOptions} fills the documented defaults.
 */
export const BrowserOptionsSchema = Type.Object(
  {
    enabled: Type.Optional(
      Type.Boolean({
        description:
          "Whether browser.preview is attached at all (default true). It is attached only when a browser is found.",
      }),
    ),
    path: Type.Optional(
      Type.String({
        minLength: 2,
        pattern: "^/",
        description:
          "Absolute path of a Chromium or Chrome executable, tried before the well-known locations. PATH is never searched.",
      }),
    ),
    timeout_ms: Type.Optional(
      Type.Integer({
        minimum: 1_000,
        maximum: 300_000,
        description: "Whole allowance for one preview, from browser start to screenshot (default 30000).",
      }),
    ),
    max_text_bytes: Type.Optional(
      Type.Integer({
        minimum: 1_024,
        maximum: 1_048_576,
        description: "Most UTF-8 bytes of the page's visible text in a result (default 65536).",
      }),
    ),
  },
  { additionalProperties: false },
);

/** The section as written: every field optional. */
export type BrowserOptions = Static<typeof BrowserOptionsSchema>;

/** The section with its defaults filled in; `path` stays optional (no configured browser). */
export interface ResolvedBrowserOptions {
  readonly enabled: boolean;
  readonly path: string | undefined;
  readonly timeoutMs: number;
  readonly maxTextBytes: number;
}

export const DEFAULT_BROWSER_OPTIONS: Readonly<ResolvedBrowserOptions> = Object.freeze({
  enabled: true,
  path: undefined,
  timeoutMs: 30_000,
  maxTextBytes: 64 * 1024,
});

/**
 * Validates `[options.browser]` (absent means every default) with the kernel's `resolveSection` and
 * fills its defaults. Never throws: a bad section comes back as located errors for the host to show.
 */
export function parseBrowserOptions(section: unknown): SectionResult<ResolvedBrowserOptions> {
  const checked = resolveSection(BrowserOptionsSchema, section);
  if (!checked.ok) return checked;
  const value = checked.value;
  const d = DEFAULT_BROWSER_OPTIONS;
  return {
    ok: true,
    value: {
      enabled: value.enabled ?? d.enabled,
      path: value.path ?? d.path,
      timeoutMs: value.timeout_ms ?? d.timeoutMs,
      maxTextBytes: value.max_text_bytes ?? d.maxTextBytes,
    },
  };
}

/**
 * {@link parseBrowserOptions} for a host that has already validated the section (as the
 * configuration loader does). Throws {@link PabloError} `INVALID_OPTIONS` naming the first problem
 * otherwise: a section that skipped validation is a host fault.
 */
export function resolveBrowserOptions(section: BrowserOptions = {}): ResolvedBrowserOptions {
  const parsed = parseBrowserOptions(section);
  if (parsed.ok) return parsed.value;
  const first = parsed.errors[0];
  throw new PabloError(HostErrorCode.INVALID_OPTIONS, `[options.browser] ${first?.path} ${first?.message}`, {
    errors: parsed.errors,
  });
}
