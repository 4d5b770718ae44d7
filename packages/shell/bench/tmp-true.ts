import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCatalog, createKernel } from "@pablo/kernel";
import { createShellTool, type ResolveCwd } from "../src/index.js";

const workspace = realpathSync(mkdtempSync(join(tmpdir(), "pablo-shell-bench-")));
const resolveCwd: ResolveCwd = async (root) => ({ ok: true, path: root });
const ns = process.env.NS === "1";
const session = createKernel().openSession({
  catalog: createCatalog([createShellTool({ workspace, resolveCwd, sandbox: { pid_namespace: ns } })]),
  permission: { mode: "auto" },
});
const run = async () => {
  const t0 = performance.now();
  try {
    await run0();
  } finally {
    if (process.env.DBG) console.error("call", (performance.now() - t0).toFixed(2));
  }
};
const run0 = async () => {
  const { result } = await session.call({ tool: "shell_run", args: { command: "true" } });
  if (!result.ok) throw new Error(JSON.stringify(result));
};
for (let i = 0; i < 30; i++) await run();
const c = process.cpuUsage();
const t = performance.now();
for (let i = 0; i < 200; i++) await run();
const u = process.cpuUsage(c);
console.log(
  "ns",
  ns,
  "wall ms",
  ((performance.now() - t) / 200).toFixed(2),
  "cpu ms",
  ((u.user + u.system) / 200 / 1000).toFixed(2),
);
