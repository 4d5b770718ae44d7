import { ErrorCode } from "@pablo/kernel";

/**
 * Every code browser.preview can return, registered once. All are the kernel's own codes: a
 * browser that fails to start is `TOOL_FAILED` with the reason in the message, not a new code.
 */
export const BrowserErrorCode = {
  INVALID_ARGUMENT: ErrorCode.INVALID_ARGUMENT,
  OUTSIDE_WORKSPACE: ErrorCode.OUTSIDE_WORKSPACE,
  NOT_FOUND: ErrorCode.NOT_FOUND,
  SYMLINK_REFUSED: ErrorCode.SYMLINK_REFUSED,
  SPECIAL_FILE: ErrorCode.SPECIAL_FILE,
  LIMIT_EXCEEDED: ErrorCode.LIMIT_EXCEEDED,
  TOOL_DENIED: ErrorCode.TOOL_DENIED,
  TOOL_FAILED: ErrorCode.TOOL_FAILED,
  TOOL_TIMEOUT: ErrorCode.TOOL_TIMEOUT,
  TOOL_CANCELLED: ErrorCode.TOOL_CANCELLED,
  TOOL_CLEANUP_FAILED: ErrorCode.TOOL_CLEANUP_FAILED,
} as const;

export type BrowserErrorCode = (typeof BrowserErrorCode)[keyof typeof BrowserErrorCode];
