export {
  type AuditStoreKind,
  defaultStorePath,
  type OpenAuditStoreOptions,
  openAuditStore,
} from "./open-store.js";
export { SqliteAuditStore } from "./sqlite-store.js";
