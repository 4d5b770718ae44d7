import { describe, expect, it } from "vitest";
import * as api from "./index.js";
import * as nodeApi from "./node.js";

describe("@pablo/kernel public surface", () => {
  it("exports exactly these names from `.`", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "AuthorityLayerSchema",
        "Budget",
        "CancelledError",
        "CatalogBuilder",
        "CommandPolicy",
        "CommandRuleSchema",
        "CredentialErrorCode",
        "DEFAULT_LIMITS",
        "DEFAULT_RULE",
        "DIMENSIONS",
        "ErrorCode",
        "HostErrorCode",
        "LimitsSchema",
        "MIN_RESULT_BOUND",
        "MemoryAuditSink",
        "MemoryEventSink",
        "NET_CANONICAL_RULE",
        "NamePolicy",
        "NameRuleSchema",
        "PERMISSION_MODES",
        "PERMISSION_TIMEOUT_MS",
        "PROVIDER_NAME_PATTERN",
        "PabloError",
        "PathPolicy",
        "PathRuleSchema",
        "REDACTED",
        "Session",
        "UrlCode",
        "UrlPolicy",
        "UrlRuleSchema",
        "boundResult",
        "canonicalJson",
        "checkCanonicalUrl",
        "compileValidator",
        "createCatalog",
        "createKernel",
        "defineLayer",
        "defineTool",
        "describeAccess",
        "evaluateAuthority",
        "evaluateInLayer",
        "fail",
        "findOpenObject",
        "isCanonicalAbsolutePath",
        "isDeferred",
        "isValidNativeName",
        "layerRules",
        "matchNet",
        "matchUrl",
        "modeGate",
        "ok",
        "permissionNeed",
        "providerNameFor",
        "redactText",
        "redactValue",
        "redactedPreview",
        "resolveLimits",
        "stateKey",
        "staticAccesses",
        "toJsonSchema",
        "utf8ByteLength",
        "withHashSuffix",
      ]
    `);
  });

  it("exports exactly these names from `./node`", () => {
    expect(Object.keys(nodeApi).sort()).toMatchInlineSnapshot(`
      [
        "JsonlAuditSink",
        "defaultAuditPath",
        "readAuditFile",
        "stateDirectory",
      ]
    `);
  });
});
