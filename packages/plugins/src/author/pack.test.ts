import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packPlugin } from "../index.js";
import { makeDistribution } from "../test-support/distribution.js";

describe("packPlugin", () => {
  it("refuses a package whose dependencies npm would publish as workspace-only specifiers", async () => {
    const dist = makeDistribution(["valid"]);
    const dir = join(dist.root, "node_modules", dist.packages["valid"] ?? "");
    const manifestPath = join(dir, "package.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, unknown>;
    writeFileSync(
      manifestPath,
      JSON.stringify({ ...manifest, dependencies: { "@pablo/plugins": "workspace:^", typebox: "catalog:" } }),
    );
    const out = join(dist.root, "out");
    const refused = await packPlugin(dir, out);
    expect(refused.ok).toBe(false);
    expect(refused.messages.filter((m) => m.code === "UNPUBLISHABLE_DEPENDENCY").map((m) => m.path)).toEqual([
      "/dependencies/@pablo~1plugins",
      "/dependencies/typebox",
    ]);
    expect(() => readdirSync(out)).toThrow();

    writeFileSync(
      manifestPath,
      JSON.stringify({ ...manifest, dependencies: { "@pablo/plugins": "^0.1.0" } }),
    );
    const packed = await packPlugin(dir, out);
    expect(packed.ok).toBe(true);
  });
});
