/**
 * The codes the fs package adds to the kernel's, each with its one meaning. The fs tools' results
 * otherwise use the kernel's `ErrorCode` (`OUTSIDE_WORKSPACE`, `REVISION_CONFLICT`, ...).
 */
export const FsErrorCode = {
  /** Host fault: the workspace is not an absolute path, or cannot be opened as a directory. */
  INVALID_WORKSPACE: "INVALID_WORKSPACE",
  /** Host fault: the scratch directory lies inside the workspace (or contains it), or cannot be made. */
  INVALID_SCRATCH: "INVALID_SCRATCH",
  /** Host fault: a session ID cannot name a scratch or review folder (not a plain path component). */
  INVALID_SESSION_ID: "INVALID_SESSION_ID",
  /** Result: a review change cannot be rolled back (no snapshot was kept, or it was swept). */
  NOT_REVERSIBLE: "NOT_REVERSIBLE",
} as const;

export type FsErrorCode = (typeof FsErrorCode)[keyof typeof FsErrorCode];

declare module "@pablo/kernel" {
  interface ErrorCodeRegistry extends Record<FsErrorCode, true> {}
}
