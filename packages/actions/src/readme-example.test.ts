import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "./load-catalog.js";
import { TRUSTED, useCatalogDir } from "./test-support/catalog-fixture.js";

describe("the README", () => {
  it("holds an example catalog that signs and loads without a diagnostic", () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const yaml = /## Example catalog\n\n```yaml\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const dir = useCatalogDir();
    mkdirSync(join(dir.dir, "scripts"));
    dir.file("scripts/disk_report.py", "import shutil\nprint(shutil.disk_usage('/'))\n");
    const loaded = loadCatalog(dir.signed(yaml), TRUSTED);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.actions.map((a) => a.name)).toEqual([
      "host_snapshot",
      "journal_unit",
      "disk_report",
      "search_app_logs",
      "orders_db",
      "cache_read",
      "status_api",
    ]);
  });
});
