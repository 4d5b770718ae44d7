/** How an adapter retries a request the provider refused for now (429, 5xx, overload). */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  readonly maxRetries: number;
  /** Wait before the first retry when the provider names none (default 1 s), doubled each time. */
  readonly baseDelayMs: number;
  /** Longest single wait; a provider asking for more fails the call instead (default 60 s). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 60_000 };

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export function isRetryableStatus(status: number | undefined): boolean {
  return status !== undefined && RETRYABLE_STATUS.has(status);
}

/**
 * The wait the provider asked for: `retry-after-ms`, else `retry-after` in seconds or as an HTTP
 * date. Undefined when neither header is usable.
 */
export function retryAfterMs(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number.parseFloat(lower.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = lower.get("retry-after");
  if (raw === undefined) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before retry number `attempt` (1-based). */
export function retryDelay(policy: RetryPolicy, attempt: number, asked: number | undefined): number {
  return asked ?? policy.baseDelayMs * 2 ** (attempt - 1);
}

/** Resolves after `ms`, or false at once when the signal aborts. */
export function waitFor(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
