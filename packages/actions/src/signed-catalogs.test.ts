import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "./load-catalog.js";
import { generateSigningKey } from "./signing.js";
import { TRUSTED, useCatalogDir } from "./test-support/catalog-fixture.js";

const ECHO = `
actions:
  - name: say
    description: Print a word.
    risk: read
    params:
      word: { type: string, description: The word. }
    exec: [/usr/bin/printf, "%s\\n", "{word}"]
  - name: other
    description: Print another word.
    risk: read
    exec: [/usr/bin/printf, other]
`;

describe("signed catalogs", () => {
  it("loads every action signed by a trusted key", () => {
    const dir = useCatalogDir();
    const loaded = loadCatalog(dir.signed(ECHO), TRUSTED);
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.actions.map((a) => [a.name, a.keyId])).toEqual([
      ["say", TRUSTED[0]?.keyId],
      ["other", TRUSTED[0]?.keyId],
    ]);
  });

  it("refuses a tampered action by name and still loads the untouched one", () => {
    const dir = useCatalogDir();
    const path = dir.signed(ECHO);
    writeFileSync(path, readFileSync(path, "utf8").replace("/usr/bin/printf, other", "/usr/bin/id, other"));
    const loaded = loadCatalog(path, TRUSTED);
    expect(loaded.actions.map((a) => a.name)).toEqual(["say"]);
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({ action: "other", code: "SIGNATURE_INVALID", severity: "error" }),
    ]);
  });

  it("refuses an unsigned action", () => {
    const dir = useCatalogDir();
    const loaded = loadCatalog(dir.file("catalog.yaml", ECHO), TRUSTED);
    expect(loaded.actions).toEqual([]);
    expect(loaded.diagnostics.map((d) => [d.action, d.code])).toEqual([
      ["say", "ACTION_UNSIGNED"],
      ["other", "ACTION_UNSIGNED"],
    ]);
  });

  it("refuses an action signed by a key that is not trusted", () => {
    const dir = useCatalogDir();
    const stranger = generateSigningKey();
    const loaded = loadCatalog(dir.signed(ECHO, stranger.privateKeyPem), TRUSTED);
    expect(loaded.actions).toEqual([]);
    expect(loaded.diagnostics.map((d) => d.code)).toEqual([
      "SIGNATURE_UNTRUSTED_KEY",
      "SIGNATURE_UNTRUSTED_KEY",
    ]);
  });

  it("refuses a copied signature on a different action", () => {
    const dir = useCatalogDir();
    const text = readFileSync(dir.signed(ECHO), "utf8");
    const signatures = [...text.matchAll(/value: (\S+)/g)].map((m) => m[1] ?? "");
    const swapped = text.replace(signatures[0] ?? "", "X").replace(signatures[1] ?? "", signatures[0] ?? "");
    const loaded = loadCatalog(dir.file("swapped.yaml", swapped), TRUSTED);
    expect(loaded.diagnostics.map((d) => [d.action, d.code])).toEqual([
      ["say", "SIGNATURE_INVALID"],
      ["other", "SIGNATURE_INVALID"],
    ]);
  });

  it("signs a script's bytes: a changed script is refused", () => {
    const dir = useCatalogDir();
    dir.file("hello.py", "print('hello')\n");
    const path = dir.signed(`
name: hello
description: Say hello from a signed script.
risk: read
script: { file: hello.py, interpreter: /usr/bin/python3 }
`);
    expect(loadCatalog(path, TRUSTED).actions.map((a) => a.name)).toEqual(["hello"]);
    dir.file("hello.py", "import os; os.system('id')\n");
    expect(loadCatalog(path, TRUSTED).diagnostics).toEqual([
      expect.objectContaining({
        action: "hello",
        code: "SIGNATURE_INVALID",
        message: "script hello.py does not match its signed digest",
      }),
    ]);
  });

  it("refuses a script outside the catalog directory", () => {
    const dir = useCatalogDir();
    const path = dir.file(
      "catalog.yaml",
      "name: x\ndescription: d\nrisk: read\nscript: { file: ../x.py, interpreter: /usr/bin/python3 }\n",
    );
    expect(() => dir.signed(readFileSync(path, "utf8"))).toThrow(/inside the catalog directory/);
  });

  it("bounds YAML aliases, so an alias bomb is a diagnostic and not a hang", () => {
    const dir = useCatalogDir();
    const bomb = [
      "a: &a [x, x, x, x, x, x, x, x, x, x]",
      ...Array.from({ length: 8 }, (_, i) => {
        const prev = i === 0 ? "a" : `l${i - 1}`;
        return `l${i}: &l${i} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`;
      }),
      "name: bomb",
    ].join("\n");
    const started = performance.now();
    const loaded = loadCatalog(dir.file("bomb.yaml", bomb), TRUSTED);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({ code: "CATALOG_UNREADABLE", message: expect.stringMatching(/alias/i) }),
    ]);
  });

  it("refuses duplicate names and unknown fields", () => {
    const dir = useCatalogDir();
    const loaded = loadCatalog(
      dir.signed(`
actions:
  - { name: a, description: d, risk: read, exec: [/usr/bin/true] }
  - { name: b, description: d, risk: read, exec: [/usr/bin/true], shell: true }
`),
      TRUSTED,
    );
    expect(loaded.actions.map((a) => a.name)).toEqual(["a"]);
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        action: "b",
        code: "ACTION_INVALID",
        message: expect.stringContaining("shell"),
      }),
    ]);
  });

  it("refuses a placeholder spliced into an argument", () => {
    const dir = useCatalogDir();
    const loaded = loadCatalog(
      dir.signed(`
name: splice
description: d
risk: read
params: { name: { type: string, description: n } }
exec: [/usr/bin/printf, "--name={name}"]
`),
      TRUSTED,
    );
    expect(loaded.diagnostics).toEqual([
      expect.objectContaining({
        code: "ACTION_INVALID",
        message: expect.stringContaining("must be a whole argument"),
      }),
    ]);
  });
});
