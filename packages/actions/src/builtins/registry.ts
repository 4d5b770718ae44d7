import type { BuiltinHandler } from "./builtin.js";
import { httpGet } from "./http-get.js";
import { logSearch } from "./log-search.js";
import { mysqlQuery } from "./mysql-query.js";
import { redisCommand } from "./redis-command.js";

/** The builtin handlers, by the name a catalog's `builtin` field gives. */
export const BUILTINS: Readonly<Record<string, BuiltinHandler>> = {
  log_search: logSearch as BuiltinHandler,
  mysql_query: mysqlQuery as BuiltinHandler,
  redis_command: redisCommand as BuiltinHandler,
  http_get: httpGet as BuiltinHandler,
};
