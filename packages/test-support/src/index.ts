export { type InertTool, inertTool } from "./inert-tool.js";
export { pnpm, pnpmPack } from "./pnpm-pack.js";
