export { resolveContainedDirectory } from "./contained-directory.js";
export type { FsToolsConfig } from "./create-fs-tools.js";
export { createFsTools } from "./create-fs-tools.js";
export { FsErrorCode } from "./errors.js";
export type { FsOptions, ResolvedFsOptions } from "./options.js";
export {
  ALWAYS_PROTECTED,
  DEFAULT_FS_OPTIONS,
  FsOptionsSchema,
  parseFsOptions,
  resolveFsOptions,
} from "./options.js";
export type { LocalFsOptions } from "./port/local.js";
export { createLocalFs } from "./port/local.js";
export type { MemoryFs } from "./port/memory.js";
export { createMemoryFs } from "./port/memory.js";
export type { DirEntry, EntryInfo, EntryType, FsPort } from "./port/types.js";
export { PortError } from "./port/types.js";
export type { DiffHunk, ReviewChange } from "./review/review-change.js";
export { DiffHunkSchema, ReviewChangeSchema } from "./review/review-change.js";
export type { ReviewEntry, RollbackResult, StagedSnapshot } from "./review/review-store.js";
export { NOT_REVERSIBLE, ReviewStore } from "./review/review-store.js";
export type { ReviewSweepOptions } from "./review/sweep-reviews.js";
export { STALE_REVIEW_MS, sweepReviewStores } from "./review/sweep-reviews.js";
export type { ScratchRoot, SweepOptions } from "./scratch.js";
export { createScratchRoot, STALE_SCRATCH_MS, scratchNotice, sweepScratch } from "./scratch.js";
