import { describe, expect, it } from "vitest";
import { leftoverResources } from "./exit-when-idle.js";

describe("what is left for Node once a command is done", () => {
  it("is nothing when only the standard streams' own handles are active", () => {
    expect(leftoverResources([], [])).toEqual([]);
    expect(leftoverResources(["PipeWrap"], ["PipeWrap"])).toEqual([]);
    expect(leftoverResources(["TTYWrap", "PipeWrap"], ["PipeWrap", "TTYWrap"])).toEqual([]);
  });

  it("counts a handle beyond the streams' own, so Node keeps deciding when to exit", () => {
    expect(leftoverResources(["PipeWrap", "PipeWrap"], ["PipeWrap"])).toEqual(["PipeWrap"]);
    expect(leftoverResources(["PipeWrap", "ProcessWrap"], ["PipeWrap"])).toEqual(["ProcessWrap"]);
    expect(leftoverResources(["Timeout"], [])).toEqual(["Timeout"]);
    expect(leftoverResources(["FSReqCallback"], ["TTYWrap"])).toEqual(["FSReqCallback"]);
  });

  it("ignores a stream handle that is not there (a file has none)", () => {
    expect(leftoverResources([], ["TTYWrap"])).toEqual([]);
  });
});
