import {
  checkCanonicalUrl,
  ErrorCode,
  fail,
  type ToolContext,
  type ToolFailure,
  type UrlCode,
} from "@pablo/plugins";

/** A URL as a tool declares it to the kernel, from {@link declareUrl}. */
export type DeclaredUrl =
  | { readonly canonical: true; readonly href: string }
  | { readonly canonical: false; readonly code: UrlCode; readonly reason: string };

/**
 * Checks a URL argument with the kernel's own canonical-URL rule, without the fragment (it is
 * never sent). A canonical URL is declared, and later requested, as its WHATWG `href`. Any other
 * spelling must be declared exactly as given, so the kernel refuses it (`kernel.net-canonical`,
 * with the code) instead of deciding on a form the parser rewrote: `%2e%2e`, raw `..`, a
 * backslash, a tab, a trailing dot or a full-width stop would otherwise be silently normalized
 * into an allowed URL.
 */
export function declareUrl(raw: string): DeclaredUrl {
  const hash = raw.indexOf("#");
  const checked = checkCanonicalUrl(hash < 0 ? raw : raw.slice(0, hash));
  return checked.ok
    ? { canonical: true, href: checked.url.href }
    : { canonical: false, code: checked.code, reason: checked.reason };
}

/** What one call will request: the URL the kernel decided on, or why nothing may be requested. */
export type NetPlan = { readonly href: string } | { readonly refused: ToolFailure };

/**
 * Plans per call ID, kept in session state between `accesses` (which decides what is declared)
 * and `execute` (which requests only what was planned, never re-reading the argument).
 */
export interface NetPlans {
  put(ctx: ToolContext, plan: NetPlan): void;
  /** The call's plan, removed; `undefined` when `accesses` never ran for it. */
  take(ctx: ToolContext): NetPlan | undefined;
}

export function netPlans(key: string): NetPlans {
  const plans = (ctx: ToolContext) => ctx.state(key, () => new Map<string, NetPlan>());
  return {
    put(ctx, plan) {
      const map = plans(ctx);
      map.set(ctx.callId, plan);
      // Calls refused after planning (and dry runs) never execute; keep their plans from piling up.
      if (map.size > 256) map.delete(map.keys().next().value as string);
    },
    take(ctx) {
      const map = plans(ctx);
      const plan = map.get(ctx.callId);
      map.delete(ctx.callId);
      return plan;
    },
  };
}

/**
 * The plan for a URL that is not canonical. The kernel refuses its declaration in every layer;
 * this refusal holds where no layer looked (a session with no layers), so such a URL is never
 * requested either way.
 */
export function refusedPlan(tool: string, url: DeclaredUrl & { canonical: false }): NetPlan {
  // The kernel's reason already shows control and invisible characters escaped.
  return {
    refused: fail(ErrorCode.TOOL_DENIED, `${tool} requests only canonical URLs: ${url.code}: ${url.reason}`, {
      urlCode: url.code,
    }),
  };
}
