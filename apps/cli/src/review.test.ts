import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pablo, useSandbox } from "./test-support/cli-harness.js";

describe("pablo review", () => {
  it("lists the snapshot of a write and rolls it back, refusing when the file changed since", async () => {
    const sandbox = useSandbox({ "notes.md": "original\n" });
    const read = JSON.parse(
      (await pablo(["call", "fs.read", "--json", "--args", '{"path":"notes.md"}'], sandbox)).stdout,
    ) as {
      data: { revision: string };
    };
    const write = async (content: string, revision: string) =>
      JSON.parse(
        (
          await pablo(
            [
              "call",
              "fs.write",
              "--allow-write",
              "--permission",
              "accept-edits",
              "--json",
              "--args",
              JSON.stringify({ path: "notes.md", content, expected_revision: revision }),
            ],
            sandbox,
          )
        ).stdout,
      ) as { ok: boolean; data: { revision: string; review: { snapshotId: string } } };
    const first = await write("changed by a tool\n", read.data.revision);
    expect(first.ok).toBe(true);
    const id = first.data.review.snapshotId;

    const listed = await pablo(["review", "list", "--json"], sandbox);
    const { changes } = JSON.parse(listed.stdout) as {
      changes: Array<{ snapshotId: string; path: string; state: string }>;
    };
    expect(changes.find((c) => c.snapshotId === id)).toMatchObject({ path: "notes.md", state: "active" });

    writeFileSync(join(sandbox.workspace, "notes.md"), "edited by a person\n");
    const conflict = await pablo(["review", "rollback", id], sandbox);
    expect(conflict.code).toBe(1);
    expect(readFileSync(join(sandbox.workspace, "notes.md"), "utf8")).toBe("edited by a person\n");

    writeFileSync(join(sandbox.workspace, "notes.md"), "changed by a tool\n");
    const rolled = await pablo(["review", "rollback", id], sandbox);
    expect(rolled.code).toBe(0);
    expect(readFileSync(join(sandbox.workspace, "notes.md"), "utf8")).toBe("original\n");
  });
});
