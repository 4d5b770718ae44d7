import { describe, expect, it } from "vitest";
import packageJson from "../package.json" with { type: "json" };
import * as a2a from "./index.js";

describe("the public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(a2a).sort()).toMatchInlineSnapshot(`
      [
        "A2A_DEFAULTS",
        "A2aDiagnosticCode",
        "A2aErrorCode",
        "A2aOptionsSchema",
        "A2aRemoteSchema",
        "A2aServeCode",
        "A2aServeError",
        "A2aServeSchema",
        "CARD_PATH",
        "RPC_PATH",
        "SERVE_DESTINATION",
        "a2aCredentialReferences",
        "a2aToolName",
        "lintA2a",
        "openA2aRemotes",
        "promoteArtifact",
        "serveA2a",
      ]
    `);
  });

  it("has a closed exports map", () => {
    expect(Object.keys(packageJson.exports)).toEqual([".", "./options", "./package.json"]);
  });

  it("registers each error code once, each with one meaning", () => {
    const codes = Object.values(a2a.A2aErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes.every((c) => c.startsWith("A2A_"))).toBe(true);
  });
});
