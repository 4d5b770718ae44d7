import { createWebPlugin } from "./plugin.js";

export type { WebOptions } from "./options.js";
export { WebOptionsSchema } from "./options.js";
export type { WebPluginPorts } from "./plugin.js";
export { createWebPlugin } from "./plugin.js";
export type { SearchBackend, SearchResult } from "./search-tool.js";
export { httpSearchBackend } from "./search-tool.js";
export { isLoopbackHost, normalizeFetchUrl } from "./url.js";

export default createWebPlugin();
