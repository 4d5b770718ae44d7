import { definePlugin, type PabloPlugin } from "@pablo/plugins";
import { createFetchTool } from "./fetch-tool.js";
import { resolveWebOptions, type WebOptions, WebOptionsSchema } from "./options.js";
import { createSearchTool, httpSearchBackend, type SearchBackend } from "./search-tool.js";

export interface WebPluginPorts {
  /** Replaces the HTTP search backend of the options. */
  readonly searchBackend?: SearchBackend;
}

/** The web plugin with injected ports; the package's default export is `createWebPlugin()`. */
export function createWebPlugin(ports: WebPluginPorts = {}): PabloPlugin<WebOptions> {
  return definePlugin({
    id: "web",
    optionsSchema: WebOptionsSchema,
    setup(host) {
      const options = resolveWebOptions(host.options);
      const endpoint = host.options?.search?.endpoint;
      const backend = ports.searchBackend ?? (endpoint ? httpSearchBackend(endpoint, options) : undefined);
      host.registerTool(createFetchTool(options));
      host.registerTool(createSearchTool(backend));
    },
  });
}
