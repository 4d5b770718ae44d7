/**
 * The effects each tool declares, and so what a deployment must grant for it (seed 003: web
 * fetch and web search are "gated by their own :fetch and :search capabilities").
 *
 * - `net` is the kernel's network effect: a deployment rule or a read-only profile that refuses
 *   `net` still refuses both tools, and every URL is decided by the kernel's net dimension.
 * - `net.fetch` and `net.search` are the two capabilities. Granting one never grants the other,
 *   and a plain `net` grant grants neither: a coarse grant would silently extend to any network
 *   tool a later version of this plugin adds, so old `["agent.tool.register", "net"]` deployments
 *   are refused with a diagnostic naming the missing capability instead of being widened.
 */
export const FETCH_EFFECTS = ["net", "net.fetch"] as const;
export const SEARCH_EFFECTS = ["net", "net.search"] as const;
