export type { BrowserErrorCode as BrowserErrorCodeValue } from "./errors.js";
export { BrowserErrorCode } from "./errors.js";
export type { BrowserDiscovery } from "./find-browser.js";
export { browserCandidates, DEFAULT_BROWSER_CANDIDATES, findBrowser } from "./find-browser.js";
export type { BrowserOptions, ResolvedBrowserOptions } from "./options.js";
export {
  BrowserOptionsSchema,
  DEFAULT_BROWSER_OPTIONS,
  parseBrowserOptions,
  resolveBrowserOptions,
} from "./options.js";
export { MAX_SCREENSHOT_BYTES } from "./preview-run.js";
export type { BrowserPreviewConfig } from "./preview-tool.js";
export { BrowserPreviewArgs, createBrowserPreviewTool, MAX_SERVED_FILE_BYTES } from "./preview-tool.js";
