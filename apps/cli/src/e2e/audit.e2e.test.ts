import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, personEnv, runPablo } from "./harness.js";

describe("pablo audit verify, replay and view from the command line", () => {
  it("verifies what real calls wrote, names a tampered record, replays a new policy and writes the page", async () => {
    const home = freshHome();
    const workspace = home.dir("project", { "notes.md": "# notes\n", "secret.env": "TOKEN=x\n" });
    const env = personEnv(home);
    const run = (args: string[]) => runPablo(args, { cwd: workspace, env });
    for (const path of ["notes.md", "secret.env"]) {
      expect((await run(["call", "fs_read", "--args", JSON.stringify({ path })])).code).toBe(0);
    }

    const verified = await run(["audit", "verify"]);
    expect(verified.stdout).toMatch(/^verified 2 record\(s\) in .*audit\.jsonl; head seq 1 [0-9a-f]{64}\n$/);
    expect(verified.code).toBe(0);

    const policy = home.write(
      "new-policy.json",
      JSON.stringify({
        id: "new",
        read_roots: { deny: [{ id: "no-env", path: join(workspace, "secret.env") }] },
      }),
    );
    const replay = await run(["audit", "replay", "--policy", policy]);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toMatch(/^replayed 2 call\(s\): 1 now denied, 0 now allowed/);
    expect(replay.stdout).toMatch(/now-denied .* fs\.read {2}allowed by .* -> denied by new\/no-env/);

    const page = join(home.home, "timeline.html");
    const view = await run(["audit", "view", "--out", page]);
    expect(view).toMatchObject({ code: 0, stdout: `wrote 1 call(s) to ${page}\n` });
    expect(readFileSync(page, "utf8")).toContain('data-tool="fs.read"');

    const file = join(home.state, "audit.jsonl");
    const [first, second] = readFileSync(file, "utf8").trim().split("\n");
    writeFileSync(file, `${second}\n${first}\n`);
    const tampered = await run(["audit", "verify"]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^AUDIT_RECORD_(REORDERED|REMOVED|INSERTED): record 0, seq 1/);
    expectNoStackTrace(tampered.stdout + tampered.stderr + replay.stderr + verified.stderr);
  });
});
