import { defineTool, ErrorCode, fail, ok, type PluginTool } from "@pablo/plugins";
import Type from "typebox";
import { FETCH_EFFECTS } from "./capabilities.js";
import { decodeText, isTextual, mediaType } from "./content.js";
import { httpGet, LoopbackRefused, TimeoutError } from "./http-get.js";
import { declareUrl, netPlans, refusedPlan } from "./net-plan.js";
import type { ResolvedWebOptions } from "./options.js";
import { normalizeFetchUrl } from "./url.js";

const FetchInput = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: "Absolute https URL of the page to fetch.",
    }),
  },
  { additionalProperties: false },
);

const plans = netPlans("web.fetch.planned");

/**
 * web.fetch: one GET. `accesses` checks the argument with the kernel's canonical-URL rule and
 * declares its `href` (or, when it is not canonical, the argument unchanged, which the kernel
 * refuses with the `URL_*` code); `execute` requests only the string the kernel decided on, kept
 * per call ID, and never re-reads the argument.
 */
export function createFetchTool(options: ResolvedWebOptions): PluginTool<typeof FetchInput> {
  return defineTool({
    name: "fetch",
    description:
      "Fetch one web page with HTTP GET and return its text. Only https URLs are fetched; redirects are not followed (the redirect target is returned so you can fetch it if policy allows); the body is cut at a size limit and the request at a time limit. Text types (HTML, plain text, JSON, XML) are returned as text; other types are only described.",
    summary: "Fetch a web page over https and return its text",
    inputSchema: FetchInput,
    risk: "medium",
    effects: FETCH_EFFECTS,
    mutates: false,
    accesses: (args, ctx) => {
      const declared = declareUrl(args.url);
      if (!declared.canonical) {
        plans.put(ctx, refusedPlan("web.fetch", declared));
        return [{ dimension: "net", url: args.url }];
      }
      const url = normalizeFetchUrl(declared.href, options.allowLoopback);
      if (!url.ok)
        return fail(ErrorCode.INVALID_ARGUMENT, `cannot fetch ${JSON.stringify(args.url)}: ${url.reason}`);
      plans.put(ctx, { href: url.href });
      return [{ dimension: "net", url: url.href }];
    },
    execute: async (_args, ctx) => {
      const plan = plans.take(ctx);
      // Without a plan the kernel did not decide on a URL; nothing is requested.
      if (plan === undefined)
        return fail(ErrorCode.TOOL_FAILED, "web.fetch runs only through the kernel's pipeline");
      if ("refused" in plan) return plan.refused;
      const href = plan.href;
      try {
        const response = await httpGet(href, { ...options, signal: ctx.signal }, (status, headers) =>
          status >= 300 && status < 400
            ? false
            : isTextual(headers["content-type"]) && encodingIsIdentity(headers),
        );
        const contentType = response.headers["content-type"] ?? "";
        const base = { url: href, status: response.status, contentType };
        if (response.status >= 300 && response.status < 400) {
          const location = response.headers.location;
          return ok({
            ...base,
            redirect: location ? new URL(location, href).href : null,
            note: "Redirects are not followed. Fetch the redirect target yourself if it is what you want.",
          });
        }
        if (!response.read) {
          const length = response.headers["content-length"];
          return ok({
            ...base,
            description: `${mediaType(contentType) || "unknown"} content${length ? ` of ${length} bytes` : ""}${encodingIsIdentity(response.headers) ? "" : ` with content-encoding ${response.headers["content-encoding"]}`}; not returned because it is not text`,
          });
        }
        return ok({
          ...base,
          text: decodeText(response.body, contentType),
          bytes: response.body.length,
          truncated: response.truncated,
        });
      } catch (error) {
        if (error instanceof TimeoutError)
          return fail(ErrorCode.TOOL_TIMEOUT, `GET ${href}: ${error.message}`);
        if (error instanceof LoopbackRefused) return fail(ErrorCode.TOOL_DENIED, error.message);
        if (ctx.signal.aborted) return fail(ErrorCode.TOOL_CANCELLED, `GET ${href} was cancelled`);
        return fail(
          ErrorCode.TOOL_FAILED,
          `GET ${href} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  });
}

function encodingIsIdentity(headers: Record<string, string | string[] | undefined>): boolean {
  const encoding = headers["content-encoding"];
  return encoding === undefined || encoding === "identity";
}
