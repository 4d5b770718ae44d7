import { describe, expect, it } from "vitest";
import { allowedPermissionModes } from "./modes.js";
import { optionsFor } from "./permission.js";
import { promptText } from "./session.js";

describe("what an editor may choose", () => {
  it("never offers a permission mode looser than the deployment's loosest", () => {
    expect(allowedPermissionModes(undefined)).toEqual(["read-only", "ask", "accept-edits", "auto"]);
    expect(allowedPermissionModes("accept-edits")).toEqual(["read-only", "ask", "accept-edits"]);
    expect(allowedPermissionModes("read-only")).toEqual(["read-only"]);
  });

  it("offers allow always for tools, but each plan or goal is approved on its own", () => {
    expect(
      optionsFor({ category: "process", providerName: "shell_run" }).map((o) => [o.optionId, o.kind]),
    ).toEqual([
      ["allow-once", "allow_once"],
      ["allow-always", "allow_always"],
      ["reject", "reject_once"],
    ]);
    expect(optionsFor({ category: "plan-submit", providerName: "SubmitPlan" }).map((o) => o.kind)).toEqual([
      "allow_once",
      "reject_once",
    ]);
  });

  it("gives the model text blocks as they are and resource links by URI", () => {
    expect(
      promptText([
        { type: "text", text: "Look at" },
        { type: "resource_link", name: "main.ts", uri: "file:///w/main.ts" },
        { type: "image", data: "", mimeType: "image/png" },
      ]),
    ).toBe("Look at\n[main.ts](file:///w/main.ts)");
  });
});
