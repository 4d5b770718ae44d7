import type { Session } from "@pablo/kernel";
import type { DeferredToolSet } from "./deferred-set.js";
import type { ToolIndex } from "./tool-index.js";

/** What ToolSearch knows about one attached session. */
export interface AttachedSession {
  readonly session: Session;
  readonly set: DeferredToolSet;
  /** The index over the deferred tools this session may see in its current mode. */
  index(): ToolIndex;
}
