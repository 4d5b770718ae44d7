import { defineTool, ErrorCode, fail, ok, type PluginTool } from "@pablo/plugins";
import Type from "typebox";
import { SEARCH_EFFECTS } from "./capabilities.js";
import { httpGet } from "./http-get.js";
import { declareUrl, netPlans, refusedPlan } from "./net-plan.js";
import type { ResolvedWebOptions } from "./options.js";
import { normalizeFetchUrl } from "./url.js";

/** One search result. */
export interface SearchResult {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
}

/**
 * Where web.search gets results. Contract: honour `signal`; `destination(query, limit)` names
 * the exact URL the search will request, so the kernel's network policy can decide on it; and
 * `search` requests `destination` as given to it (the URL the kernel decided on: the canonical
 * `href` of what `destination` returned), never another URL.
 */
export interface SearchBackend {
  destination(query: string, limit: number): string;
  search(
    query: string,
    limit: number,
    signal: AbortSignal,
    destination: string,
  ): Promise<readonly SearchResult[]>;
}

const plans = netPlans("web.search.planned");

const SearchInput = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 500, description: "What to search the web for." }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, description: "Most results (default 5)." })),
  },
  { additionalProperties: false },
);

/**
 * web.search over an injected backend. Without one, every call is refused before anything runs.
 * The backend's destination is declared like web.fetch's URL: its canonical `href`, or, when it
 * is not canonical, exactly as the backend spelled it, so the kernel refuses it with the code.
 */
export function createSearchTool(backend: SearchBackend | undefined): PluginTool<typeof SearchInput> {
  return defineTool({
    name: "search",
    description:
      "Search the web and return a short list of results (title, URL, snippet). Use web.fetch on a result's URL to read it.",
    summary: "Search the web for pages about a topic",
    inputSchema: SearchInput,
    risk: "medium",
    effects: SEARCH_EFFECTS,
    mutates: false,
    accesses: (args, ctx) => {
      if (!backend) return fail(ErrorCode.TOOL_FAILED, "web.search has no search backend configured");
      const raw = backend.destination(args.query, args.limit ?? 5);
      const declared = declareUrl(raw);
      if (!declared.canonical) {
        plans.put(ctx, refusedPlan("web.search", declared));
        return [{ dimension: "net", url: raw }];
      }
      plans.put(ctx, { href: declared.href });
      return [{ dimension: "net", url: declared.href }];
    },
    execute: async (args, ctx) => {
      if (!backend) return fail(ErrorCode.TOOL_FAILED, "web.search has no search backend configured");
      const plan = plans.take(ctx);
      if (plan === undefined)
        return fail(ErrorCode.TOOL_FAILED, "web.search runs only through the kernel's pipeline");
      if ("refused" in plan) return plan.refused;
      try {
        const results = await backend.search(args.query, args.limit ?? 5, ctx.signal, plan.href);
        return ok({
          query: args.query,
          results: results.slice(0, args.limit ?? 5).map((r) => ({
            title: String(r.title).slice(0, 300),
            url: String(r.url).slice(0, 2048),
            snippet: String(r.snippet).slice(0, 500),
          })),
        });
      } catch (error) {
        return fail(
          ErrorCode.TOOL_FAILED,
          `search failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    },
  });
}

/**
 * A backend over a JSON endpoint: GET `<endpoint>?q=<query>&limit=<n>`, answering
 * `{ "results": [{ "title", "url", "snippet" }] }`. Same rules as web.fetch (https, no redirects,
 * bounded), and the URL it declares is the URL it requests. An endpoint that is not a canonical
 * URL is never parsed into one: its destination is the endpoint as configured, which the kernel
 * refuses, so a `..` or a trailing dot in the configuration cannot reach a rewritten address.
 */
export function httpSearchBackend(endpoint: string, options: ResolvedWebOptions): SearchBackend {
  const base = declareUrl(endpoint);
  const destination = (query: string, limit: number) => {
    if (!base.canonical) return endpoint;
    const url = new URL(base.href);
    url.searchParams.set("q", query);
    url.searchParams.set("limit", String(limit));
    return url.href;
  };
  return {
    destination,
    search: async (query, limit, signal, decided = destination(query, limit)) => {
      const canonical = declareUrl(decided);
      if (!canonical.canonical || canonical.href !== decided)
        throw new Error(`search endpoint refused: ${decided} is not a canonical URL`);
      const checked = normalizeFetchUrl(decided, options.allowLoopback);
      if (!checked.ok) throw new Error(`search endpoint refused: ${checked.reason}`);
      const response = await httpGet(
        checked.href,
        { ...options, signal, accept: "application/json" },
        (status) => status === 200,
      );
      if (!response.read) throw new Error(`search endpoint answered HTTP ${response.status}`);
      if (response.truncated) throw new Error("search endpoint answer exceeded the size limit");
      const parsed = JSON.parse(response.body.toString("utf8")) as { results?: unknown };
      if (!Array.isArray(parsed.results)) throw new Error("search endpoint answer has no results array");
      return parsed.results.filter(
        (r): r is SearchResult =>
          r !== null && typeof r === "object" && typeof (r as SearchResult).url === "string",
      );
    },
  };
}
