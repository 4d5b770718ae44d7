import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createCatalog, toJsonSchema } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { createFsTools } from "./create-fs-tools.js";
import * as entry from "./index.js";
import { createScratchRoot } from "./scratch.js";
import { useTempDir } from "./test-support/harness.js";

describe("what the model sees", () => {
  it("pins provider names, risk, effects, categories and mutation flags", async () => {
    const tools = await createFsTools({ workspace: useTempDir() });
    const catalog = createCatalog(tools);
    expect(
      catalog.entries.map((e) => ({
        name: e.name,
        provider: e.providerName,
        risk: e.definition.risk,
        effects: e.definition.effects,
        category: e.definition.category,
        mutates: e.definition.mutates,
      })),
    ).toMatchInlineSnapshot(`
      [
        {
          "category": "read",
          "effects": [
            "fs.read",
          ],
          "mutates": false,
          "name": "fs.read",
          "provider": "fs_read",
          "risk": "low",
        },
        {
          "category": "read",
          "effects": [
            "fs.read",
          ],
          "mutates": false,
          "name": "fs.list",
          "provider": "fs_list",
          "risk": "low",
        },
        {
          "category": "read",
          "effects": [
            "fs.read",
          ],
          "mutates": false,
          "name": "fs.search",
          "provider": "fs_search",
          "risk": "low",
        },
        {
          "category": "read",
          "effects": [
            "fs.read",
          ],
          "mutates": false,
          "name": "fs.glob",
          "provider": "fs_glob",
          "risk": "low",
        },
        {
          "category": "write",
          "effects": [
            "fs.write",
          ],
          "mutates": true,
          "name": "fs.write",
          "provider": "fs_write",
          "risk": "high",
        },
        {
          "category": "write",
          "effects": [
            "fs.write",
          ],
          "mutates": true,
          "name": "fs.edit",
          "provider": "fs_edit",
          "risk": "high",
        },
      ]
    `);
  });

  it("pins every tool's description and JSON schema", async () => {
    const tools = await createFsTools({ workspace: useTempDir() });
    const shown = Object.fromEntries(
      tools.map((t) => [
        t.name,
        { summary: t.summary, description: t.description, schema: toJsonSchema(t.inputSchema) },
      ]),
    );
    expect(shown).toMatchSnapshot();
  });

  it("states the session scratch directory's absolute path in fs.read, fs.write and fs.edit", async () => {
    const base = useTempDir();
    const scratch = createScratchRoot(join(base, "data"), "s-1");
    const ws = join(base, "ws");
    mkdirSync(ws);
    const tools = await createFsTools({ workspace: ws, scratch });
    const plain = await createFsTools({ workspace: ws });
    const shown = Object.fromEntries(
      tools.map((t, i) => {
        const added = t.description.slice(plain[i]?.description.length ?? 0);
        return [t.name, added.replaceAll(scratch.path, "<scratch>")];
      }),
    );
    expect(shown).toMatchInlineSnapshot(`
      {
        "fs.edit": " The session scratch directory is <scratch>: address it by that absolute path (relative paths always resolve against the workspace); changes there need no approval and leave no review record.",
        "fs.glob": "",
        "fs.list": "",
        "fs.read": " The session scratch directory is <scratch>: address it by that absolute path (relative paths always resolve against the workspace).",
        "fs.search": "",
        "fs.write": " The session scratch directory is <scratch>: address it by that absolute path (relative paths always resolve against the workspace); changes there need no approval and leave no review record.",
      }
    `);
  });

  it("describes a tracked-revisions deployment in the schemas the model reads", async () => {
    const tools = await createFsTools({ workspace: useTempDir(), options: { revisions: "tracked" } });
    const write = toJsonSchema(tools.find((t) => t.name === "fs.write")?.inputSchema ?? {});
    expect(JSON.stringify(write)).toContain("Omit it to replace a file this session has read");
  });
});

describe("public surface", () => {
  it("exports exactly the documented names", () => {
    expect(Object.keys(entry).sort()).toMatchInlineSnapshot(`
      [
        "ALWAYS_PROTECTED",
        "DEFAULT_FS_OPTIONS",
        "DiffHunkSchema",
        "FsErrorCode",
        "FsOptionsSchema",
        "NOT_REVERSIBLE",
        "PortError",
        "ReviewChangeSchema",
        "ReviewStore",
        "STALE_REVIEW_MS",
        "STALE_SCRATCH_MS",
        "createFsTools",
        "createLocalFs",
        "createMemoryFs",
        "createScratchRoot",
        "parseFsOptions",
        "resolveContainedDirectory",
        "resolveFsOptions",
        "scratchNotice",
        "sweepReviewStores",
        "sweepScratch",
      ]
    `);
  });
});

describe("[options.fs]", () => {
  it("parses a bad section into located errors that say what is allowed, without throwing", async () => {
    const { DEFAULT_FS_OPTIONS, parseFsOptions } = await import("./options.js");
    expect(parseFsOptions(undefined)).toEqual({ ok: true, value: DEFAULT_FS_OPTIONS });
    expect(parseFsOptions({ symlinks: "follow", revison: "tracked" })).toEqual({
      ok: false,
      errors: [
        {
          kind: "unknown-key",
          path: "/revison",
          keys: ["revison"],
          message: 'unknown key "revison"; did you mean "revisions"?',
        },
        {
          kind: "invalid",
          path: "/symlinks",
          keys: ["symlinks"],
          message: expect.stringMatching(/^must be .*"refuse".* \(got "follow"\)$/),
        },
      ],
    });
  });

  it("fills defaults and refuses unknown keys and bad values", async () => {
    const { DEFAULT_FS_OPTIONS, resolveFsOptions } = await import("./options.js");
    expect(resolveFsOptions()).toEqual(DEFAULT_FS_OPTIONS);
    expect(resolveFsOptions({ revisions: "tracked", quotas: { entries: 5 } })).toMatchObject({
      revisions: "tracked",
      symlinks: "refuse",
      outside_paths: "deny",
      quotas: { entries: 5 },
    });
    expect(() => resolveFsOptions({ symlinks: "follow" } as never)).toThrow(/options\.fs/);
    expect(() => resolveFsOptions({ quotas: { files: 1 } } as never)).toThrow(/options\.fs/);
    expect(() => resolveFsOptions({ protected: ["a/b"] })).toThrow(/options\.fs/);
    await expect(
      createFsTools({ workspace: useTempDir(), options: { extra: true } as never }),
    ).rejects.toThrow(/options\.fs/);
  });
});
