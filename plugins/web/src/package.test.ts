import { readFileSync } from "node:fs";
import { join } from "node:path";
import { checkPlugin } from "@pablo/plugins";
import { describe, expect, it } from "vitest";
import { packageDir } from "./test-support/session.js";

describe("the published package", () => {
  it("passes PluginCheck: manifest, exports, closed schemas and names match the module", async () => {
    const checked = await checkPlugin(packageDir);
    expect(checked.messages).toEqual([]);
    expect(checked.valid).toBe(true);
    expect(checked.registered.map((t) => [t.name, t.risk, t.effects])).toEqual([
      ["fetch", "medium", ["net", "net.fetch"]],
      ["search", "medium", ["net", "net.search"]],
    ]);
  });

  it("depends on @pablo/plugins alone among Pablo packages, as a third-party plugin would", () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
    expect(Object.keys(pkg.dependencies).sort()).toEqual(["@pablo/plugins", "typebox"]);
    for (const file of ["fetch-tool.ts", "search-tool.ts", "plugin.ts", "http-get.ts"]) {
      expect(readFileSync(join(packageDir, "src", file), "utf8")).not.toContain("@pablo/kernel");
    }
  });
});
