import type { TObjectOptions, TRecordAction, TSchema, TString } from "typebox";
import { Memory } from "typebox/system";
import { RecordFromPattern, StringKey } from "typebox/type";

/**
 * `Type.Record(key, value, options)` for a string key: the same schema, hidden `~kind` and static
 * type, built the way typebox builds it for a string key (the key's `pattern` when it has one,
 * else any string). `Type.Record` itself loads typebox's type engine to handle every other kind of
 * key (unions, template literals, enums), about 130 KB that every option schema built at start-up
 * would make the CLI compile on each run.
 */
export function StringRecord<Value extends TSchema>(
  key: TString,
  value: Value,
  options: TObjectOptions = {},
): TRecordAction<TString, Value> {
  const keyPattern = (key as { pattern?: string | RegExp }).pattern;
  const pattern = keyPattern === undefined ? StringKey : keyPattern.toString();
  return Memory.Update(RecordFromPattern(pattern, value), {}, options) as TRecordAction<TString, Value>;
}
