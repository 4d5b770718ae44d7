import { chmodSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadCatalog } from "./load-catalog.js";
import { checkProgram } from "./program-check.js";
import { callAction, TRUSTED, useCatalogDir } from "./test-support/catalog-fixture.js";

function executables() {
  const dir = useCatalogDir();
  const make = (name: string, content: string | Buffer) => {
    const path = dir.file(name, content);
    chmodSync(path, 0o755);
    return path;
  };
  return {
    dir,
    shebang: make("script.sh", "#!/bin/sh\necho hi\n"),
    text: make("plain.txt", "echo hi\n"),
    fakeElf: make(
      "fake-elf",
      Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46]), Buffer.from("\necho hi\n")]),
    ),
  };
}

describe("interpreters and scripts", () => {
  it.each([["/bin/sh"], ["/usr/bin/python3"], ["/usr/bin/perl"], ["/usr/bin/env"]])(
    "refuses %s -c unless allow_interpreter",
    (program) => {
      const argv = program === "/usr/bin/env" ? [program, "sh", "-c", "id"] : [program, "-c", "id"];
      expect(checkProgram(argv, false)).toMatchObject({ ok: false });
      const allowed = checkProgram(argv, true);
      expect(allowed).toMatchObject({ ok: true, warnings: [expect.stringContaining("allow_interpreter")] });
    },
  );

  it("refuses a #! script and a non-ELF file as the program", () => {
    const { shebang, text } = executables();
    expect(checkProgram([shebang], false)).toEqual({
      ok: false,
      reason: `program ${shebang} is a #! script`,
    });
    expect(checkProgram([text], false)).toEqual({
      ok: false,
      reason: `program ${text} is not an ELF executable`,
    });
  });

  it("refuses launchers it does not parse (sudo, setsid, flock, ...)", () => {
    expect(checkProgram(["/usr/bin/setsid", "/usr/bin/id"], false)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("unchecked"),
    });
  });

  it("refuses at load, with a diagnostic naming the action, and warns when allow_interpreter is set", () => {
    const dir = useCatalogDir();
    const loaded = loadCatalog(
      dir.signed(`
actions:
  - { name: shell, description: d, risk: read, exec: [/bin/sh, -c, id] }
  - { name: allowed_shell, description: d, risk: read, exec: [/bin/sh, -c, "echo ok"], allow_interpreter: true }
`),
      TRUSTED,
    );
    expect(loaded.actions.map((a) => a.name)).toEqual(["allowed_shell"]);
    expect(loaded.diagnostics.map((d) => [d.action, d.code, d.severity])).toEqual([
      ["shell", "INTERPRETER_REFUSED", "error"],
      ["allowed_shell", "INTERPRETER_ALLOWED", "warning"],
      ["allowed_shell", "INTERPRETER_ALLOWED", "warning"],
    ]);
  });

  it("runs a signed Python script with -I from a private directory that is removed afterwards", async () => {
    const dir = useCatalogDir();
    dir.file(
      "where.py",
      "import sys, os\nprint(sys.flags.isolated)\nprint(os.path.dirname(os.path.abspath(sys.argv[0])))\nprint(sys.argv[1])\n",
    );
    const loaded = loadCatalog(
      dir.signed(`
name: where
description: d
risk: read
params: { arg: { type: string, description: a } }
script: { file: where.py, interpreter: /usr/bin/python3, args: ["{arg}"] }
`),
      TRUSTED,
    );
    const action = loaded.actions[0];
    if (!action) throw new Error(JSON.stringify(loaded.diagnostics));
    const result = await callAction(action, { params: { arg: "x; id" } });
    const [isolated, scriptDir, arg] = (
      (result as unknown as { data: { steps: { stdout: string }[] } }).data.steps[0]?.stdout ?? ""
    )
      .trim()
      .split("\n");
    expect([isolated, arg]).toEqual(["1", "x; id"]);
    expect(scriptDir).toMatch(/pablo-action-/);
    const { existsSync } = await import("node:fs");
    expect(existsSync(scriptDir ?? "/")).toBe(false);
  });
});

describe("wrapped commands: the documented limits", () => {
  it("checks a wrapped target for the ELF magic only: an ELF target runs", () => {
    expect(checkProgram(["/usr/bin/env", "-i", "A=b", "/usr/bin/id"], false)).toEqual({
      ok: true,
      warnings: [],
    });
    expect(checkProgram(["/usr/bin/timeout", "-s", "KILL", "5", "id"], false)).toEqual({
      ok: true,
      warnings: [],
    });
    expect(
      checkProgram(["/usr/bin/nice", "-n", "5", "/usr/bin/ionice", "-c", "3", "/usr/bin/id"], false),
    ).toEqual({
      ok: true,
      warnings: [],
    });
  });

  it("refuses a wrapped interpreter, #! script or non-ELF file without allow_interpreter", () => {
    const { shebang, text } = executables();
    expect(checkProgram(["/usr/bin/timeout", "5", "/bin/sh", "-c", "id"], false)).toMatchObject({
      ok: false,
    });
    expect(checkProgram(["/usr/bin/stdbuf", "-oL", shebang], false)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("#! script"),
    });
    expect(checkProgram(["/usr/bin/env", text], false)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("not an ELF executable"),
    });
    expect(checkProgram(["/usr/bin/env", text], true)).toMatchObject({ ok: true });
  });

  it("accepts a file that starts with \\x7fELF but is not a valid ELF executable (documented limit)", () => {
    const { fakeElf } = executables();
    expect(checkProgram(["/usr/bin/env", fakeElf], false)).toEqual({ ok: true, warnings: [] });
  });

  it("checks only the command name under nsenter -r, -a, -m and --mount (documented limit)", () => {
    for (const option of ["-r", "--root", "-a", "-m", "--mount", "--mount=/proc/1/ns/mnt", "-r/srv/other"]) {
      // The target cannot be inspected, so a path that does not exist on the host passes by name…
      expect(checkProgram(["/usr/bin/nsenter", "-t", "1", option, "/opt/inside/tool"], false)).toEqual({
        ok: true,
        warnings: [],
      });
      // …and an interpreter is still refused by its name.
      expect(checkProgram(["/usr/bin/nsenter", "-t", "1", option, "/bin/bash"], false)).toMatchObject({
        ok: false,
      });
    }
  });

  it("inspects the target on the host under nsenter -r<dir> and --root=<dir> when <dir> is the host root", () => {
    const { shebang } = executables();
    for (const option of ["-r/", "--root=/"]) {
      expect(checkProgram(["/usr/bin/nsenter", "-t", "1", option, shebang], false)).toMatchObject({
        ok: false,
        reason: expect.stringContaining("#! script"),
      });
      expect(checkProgram(["/usr/bin/nsenter", "-t", "1", option, "/opt/missing/tool"], false)).toMatchObject(
        {
          ok: false,
          reason: expect.stringContaining("cannot be read"),
        },
      );
    }
  });

  it("refuses what it cannot evaluate literally: env -S, unknown options, chroot without a command", () => {
    expect(checkProgram(["/usr/bin/env", "-S", "sh -c id"], false)).toMatchObject({ ok: false });
    expect(checkProgram(["/usr/bin/env", "--split-string=sh -c id"], false)).toMatchObject({ ok: false });
    expect(checkProgram(["/usr/bin/timeout", "--bogus", "5", "id"], false)).toMatchObject({ ok: false });
    expect(checkProgram(["/usr/sbin/chroot", "/"], false)).toMatchObject({ ok: false });
    expect(checkProgram(["/usr/bin/xargs", "-0", "sh"], false)).toMatchObject({ ok: false });
  });

  it("refuses a wrapped command that a parameter supplies, even with allow_interpreter", () => {
    expect(checkProgram(["/usr/bin/env", "/usr/bin/id"], true, new Set([1]))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("parameter"),
    });
  });
});
