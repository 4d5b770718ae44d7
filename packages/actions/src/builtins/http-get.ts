import { checkCanonicalUrl, ErrorCode, fail, matchUrl } from "@pablo/kernel";
import Type, { type Static } from "typebox";
import { ActionsErrorCode } from "../errors.js";
import type { BuiltinHandler } from "./builtin.js";
import { checkConfig } from "./config.js";

/** The handler's ceilings; `builtin_config` may only lower them. */
export const HTTP_GET_LIMITS = { maxBytes: 1024 * 1024, maxPrefixes: 32 } as const;

const ConfigSchema = Type.Object(
  {
    prefixes: Type.Array(Type.String({ minLength: 8, maxLength: 2048 }), {
      minItems: 1,
      maxItems: HTTP_GET_LIMITS.maxPrefixes,
      description: "URL prefixes (scheme, host, port, path) a call may GET, compared on the parsed URL.",
    }),
    max_bytes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: HTTP_GET_LIMITS.maxBytes,
        description: "Most response body bytes read (default 256 KiB).",
      }),
    ),
  },
  { additionalProperties: false },
);
type HttpGetConfig = Static<typeof ConfigSchema>;

const ParamsSchema = Type.Object(
  {
    url: Type.String({
      minLength: 8,
      maxLength: 2048,
      description: "The URL to GET; it must lie within the action's signed prefixes.",
    }),
  },
  { additionalProperties: false, description: "The request." },
);

/**
 * `http_get`: one GET within the signed URL prefixes, matched with the kernel's net matcher on the
 * canonical URL (no normalization: a URL another parser could read differently is refused). No
 * redirect is followed (a 3xx is reported with its Location), the body is read up to its bound,
 * and the HTTP status is part of the result: a 404 is a successful call that says 404.
 */
export const httpGet: BuiltinHandler<HttpGetConfig> = {
  name: "http_get",
  summary: "GET a URL within signed prefixes",
  effects: ["net"],
  category: "external",
  paramsSchema: ParamsSchema,
  resolveConfig(raw) {
    const checked = checkConfig(ConfigSchema, raw);
    if (!checked.ok) return checked;
    for (const prefix of checked.config.prefixes) {
      const url = checkCanonicalUrl(prefix);
      if (!url.ok) return { ok: false, problem: `prefix ${prefix} is not canonical: ${url.reason}` };
      if (!/^https?:$/.test(url.url.protocol))
        return { ok: false, problem: `prefix ${prefix} is not http or https` };
      if (/[?#@]/.test(prefix.slice(url.url.protocol.length + 2))) {
        return {
          ok: false,
          problem: `prefix ${prefix} may not carry user information, a query or a fragment`,
        };
      }
    }
    return checked;
  },
  accesses(config, params) {
    const url = String(params["url"]);
    const problem = urlProblem(config, url);
    return problem ? fail(ActionsErrorCode.URL_REFUSED, problem) : [{ dimension: "net", url }];
  },
  async run(config, params, context) {
    const url = String(params["url"]);
    const problem = urlProblem(config, url);
    if (problem) return fail(ActionsErrorCode.URL_REFUSED, problem);
    const maxBytes = config.max_bytes ?? 256 * 1024;
    let response: Response;
    try {
      response = await fetch(url, { method: "GET", redirect: "manual", signal: context.signal });
    } catch (error) {
      return fail(
        ErrorCode.TOOL_FAILED,
        `GET ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const body = await readBounded(response, maxBytes);
    const location = response.headers.get("location");
    return {
      ok: true,
      data: {
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get("content-type") ?? "",
        ...(location !== null ? { location } : {}),
        bodyBytes: body.bytes,
        bodyTruncated: body.truncated,
      },
      text: body.text,
      scanLimited: body.truncated,
    };
  },
  async check() {
    return undefined;
  },
};

function urlProblem(config: HttpGetConfig, url: string): string | undefined {
  const checked = checkCanonicalUrl(url);
  if (!checked.ok) return `${checked.code}: ${checked.reason}`;
  if (/[@]/.test(url.slice(checked.url.protocol.length + 2).split("/")[0] ?? ""))
    return "a URL may not carry user information";
  const inside = config.prefixes.some((prefix, i) =>
    matchUrl({ id: `prefix-${i}`, prefix }, checked.url, false),
  );
  return inside ? undefined : `${url} is outside the action's URL prefixes`;
}

async function readBounded(
  response: Response,
  maxBytes: number,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: "", bytes: 0, truncated: false };
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - bytes;
      if (value.length > room) {
        chunks.push(value.subarray(0, room));
        bytes += room;
        truncated = true;
        break;
      }
      chunks.push(value);
      bytes += value.length;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return { text: Buffer.concat(chunks).toString("utf8"), bytes, truncated };
}
