import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@pablo/actions public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toEqual([
      "ACTION_LIMITS",
      "ActionSpecSchema",
      "ActionsErrorCode",
      "ActionsOptionsSchema",
      "BUILTINS",
      "BUILTIN_NAMES",
      "FILTER_NAMES",
      "MAX_PATTERN_LENGTH",
      "REDACTED",
      "REDIS_COMMANDS",
      "actionInputSchema",
      "actionTool",
      "applyFilters",
      "checkActions",
      "checkProgram",
      "createActionsProvider",
      "createRedactor",
      "filterProblem",
      "generateSigningKey",
      "keyIdOf",
      "loadCatalog",
      "loadCatalogs",
      "signAction",
      "signCatalogText",
      "sqlProblem",
      "trustedKey",
      "verifyAction",
    ]);
  });
});
