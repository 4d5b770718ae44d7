import { createCatalog, createKernel } from "@pablo/kernel";
import { createFsTools } from "./dist/index.js";

const tools = await createFsTools({ workspace: "/tmp/pablo-fs-bench-tree-v1" });
const s = createKernel().openSession({ catalog: createCatalog(tools), permission: { mode: "auto" } });
for (let i = 0; i < 6; i++) {
  const c0 = process.cpuUsage();
  const t = performance.now();
  const { result } = await s.call({
    tool: "fs_search",
    args: { query: "needle_marker", max_matches: 10000 },
  });
  const c = process.cpuUsage(c0);
  console.log((performance.now() - t).toFixed(0), ((c.user + c.system) / 1000).toFixed(0), result.ok);
}
