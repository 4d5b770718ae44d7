/**
 * What the author tools run, loaded on a tool's first call: every `pablo` start builds these tools
 * to list them, and none of that needs the plugin inspector, npm pack or the templates. The one
 * lazy boundary of the author tools.
 */
export const onDemand = {
  scaffold: () => import("./scaffold.js"),
  check: () => import("./check.js"),
  pack: () => import("./pack.js"),
};
