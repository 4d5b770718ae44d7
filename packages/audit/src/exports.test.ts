import { describe, expect, it } from "vitest";
import * as api from "./index.js";

describe("@pablo/audit public surface", () => {
  it("exports exactly these names", () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "SqliteAuditStore",
        "defaultStorePath",
        "openAuditStore",
        "recordedVerdict",
        "renderTimeline",
        "replayRecords",
        "replayStore",
        "serveTimeline",
      ]
    `);
  });
});
