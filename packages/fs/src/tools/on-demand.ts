/**
 * The heavy halves of the fs tools, loaded on a tool's first call: building the tools and listing
 * them (`pablo tools`, an MCP `tools/list`, every `pablo` start) never compiles the search's walk
 * and worker pool, the glob compiler, or the diff library behind a write's review record. fs.read and
 * fs.list stay whole: their calls need little beyond the path resolution every tool loads. The one
 * lazy boundary of this package.
 */
export const onDemand = {
  search: () => import("./search-run.js"),
  glob: () => import("./glob-run.js"),
  globPattern: () => import("./glob-pattern.js"),
  mutate: () => import("./mutate.js"),
};
