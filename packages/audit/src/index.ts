export {
  type AuditStoreKind,
  defaultStorePath,
  type OpenAuditStoreOptions,
  openAuditStore,
} from "./open-store.js";
export {
  type ReplayChange,
  type ReplayChangeKind,
  type ReplayedCall,
  type ReplayReport,
  type ReplayVerdict,
  recordedVerdict,
  replayRecords,
  replayStore,
} from "./replay.js";
export { SqliteAuditStore } from "./sqlite-store.js";
export { renderTimeline, serveTimeline, type TimelineOptions } from "./timeline.js";
