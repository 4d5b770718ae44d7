import { PabloError } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { Compile } from "typebox/compile";

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

const validator = Compile(BrowserOptionsSchema);

/**
 * Validates `[options.browser]` and fills its defaults. Throws {@link PabloError}
 * `INVALID_OPTIONS` naming the first problem: a deployment with a bad section must not start.
 */
export function resolveBrowserOptions(section: BrowserOptions = {}): ResolvedBrowserOptions {
  if (!validator.Check(section)) {
    const first = [...validator.Errors(section)][0];
    throw new PabloError(
      "INVALID_OPTIONS",
      `[options.browser] ${first?.instancePath || "/"} ${first?.message ?? "is invalid"}`,
    );
  }
  const d = DEFAULT_BROWSER_OPTIONS;
  return {
    enabled: section.enabled ?? d.enabled,
    path: section.path ?? d.path,
    timeoutMs: section.timeout_ms ?? d.timeoutMs,
    maxTextBytes: section.max_text_bytes ?? d.maxTextBytes,
  };
}
