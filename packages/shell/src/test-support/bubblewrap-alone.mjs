// Runs shell.run under bubblewrap in a process of its own, from the built package, and prints
// what a host would see as JSON: the tool's description and three calls' results. Started by
// bubblewrap-sandbox.test.ts in a mount namespace where unshare cannot run, since which
// containment the probe finds is decided once per process.
import { createCatalog, createKernel } from "@pablo/kernel";
import { createShellTool } from "../../dist/index.js";

const [workspace, home] = process.argv.slice(2);
const tool = createShellTool({ workspace, sandbox: { kind: "bubblewrap" } });
const session = createKernel().openSession({ catalog: createCatalog([tool]), permission: { mode: "auto" } });
const run = async (command) => (await session.call({ tool: "shell_run", args: { command } })).result;
const results = {
  echo: await run("echo inside > inside.txt && cat inside.txt"),
  home: await run(`ls ${home}`),
  etc: await run("echo x > /etc/pablo-escape-alone"),
};
process.stdout.write(JSON.stringify({ description: tool.description, results }));
