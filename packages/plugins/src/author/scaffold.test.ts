import { mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { scaffoldPlugin } from "../index.js";

function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "pablo-scaffold-")));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe("scaffoldPlugin", () => {
  it("names why it wrote nothing with a stable code", async () => {
    const root = scratch();
    expect(await scaffoldPlugin(join(root, "a"), "Bad Name")).toMatchObject({
      ok: false,
      code: "INVALID_PACKAGE_NAME",
    });
    expect(readdirSync(root)).toEqual([]);

    writeFileSync(join(root, "taken.txt"), "x");
    expect(await scaffoldPlugin(root, "pablo-plugin-x")).toMatchObject({
      ok: false,
      code: "DIRECTORY_NOT_EMPTY",
      message: `${root} is not empty`,
    });

    const inFile = await scaffoldPlugin(join(root, "taken.txt", "sub"), "pablo-plugin-x");
    expect(inFile).toMatchObject({ ok: false, code: "SCAFFOLD_FAILED" });
    expect(inFile.ok ? "" : inFile.message).toContain("ENOTDIR");
    expect(readdirSync(root)).toEqual(["taken.txt"]);
  });
});
