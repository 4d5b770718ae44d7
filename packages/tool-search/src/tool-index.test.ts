import { createCatalog } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { documentOf, ToolIndex, tokenize } from "./index.js";
import { sampleTools } from "./test-support/tools.js";

const index = () => ToolIndex.build(createCatalog(sampleTools()).entries.map(documentOf));

describe("ToolIndex", () => {
  it("splits identifiers and folds word forms", () => {
    expect(tokenize("plugin_tracker.issueCreate: Closes the ISSUES")).toEqual([
      "plugin",
      "tracker",
      "issu",
      "creat",
      "clos",
      "issu",
    ]);
  });

  it("resolves exact provider and native names, case-insensitively", () => {
    expect(index().exact("plugin_web_fetch")?.name).toBe("plugin.web.fetch");
    expect(index().exact("PLUGIN.WEB.FETCH")?.providerName).toBe("plugin_web_fetch");
    expect(index().exact("web")).toBeUndefined();
  });

  it.each([
    ["report a new bug", "plugin_tracker_issue_create"],
    ["resolve a ticket", "plugin_tracker_issue_close"],
    ["download a page from the internet", "plugin_web_fetch"],
    ["find files matching a wildcard pattern", "fs_glob"],
    ["look for a regular expression inside files", "fs_grep"],
  ])("ranks %j first as %s", (query, expected) => {
    expect(index().search(query, 3)[0]?.document.providerName).toBe(expected);
  });

  it("indexes parameter names and descriptions", () => {
    expect(index().search("regex", 1)[0]?.document.providerName).toBe("fs_grep");
  });

  it("returns nothing for unrelated words and respects the limit", () => {
    expect(index().search("zebra xylophone", 5)).toEqual([]);
    expect(index().search("issue", 1)).toHaveLength(1);
    expect(index().search("issue", 0)).toEqual([]);
  });

  it("ranks the same way on every build", () => {
    const a = index()
      .search("issue tracker", 5)
      .map((h) => h.document.providerName);
    expect(
      index()
        .search("issue tracker", 5)
        .map((h) => h.document.providerName),
    ).toEqual(a);
  });
});
