export { pnpm, pnpmPack } from "./pnpm-pack.js";
