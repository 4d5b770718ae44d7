import { describe, expect, it } from "vitest";
import { runProcess } from "./run-process.js";
import { runRequest } from "./test-support/run-request.js";
import { useWorkspace } from "./test-support/workspace.js";

const request = (executable: string, cwd: string) => runRequest(executable, cwd);

describe("runProcess", () => {
  it("reports an executable or directory that cannot be started as spawn-failed, with nothing left open", async () => {
    const cwd = useWorkspace();
    const missing = await runProcess(request("/nonexistent/sh", cwd));
    expect(missing).toMatchObject({ end: { kind: "spawn-failed", code: "ENOENT" }, survivors: [] });
    const gone = await runProcess(request("/bin/sh", `${cwd}/vanished`));
    expect(gone.end).toMatchObject({ kind: "spawn-failed", code: "ENOENT" });
  });

  it("captures the output of a run that exits", async () => {
    const outcome = await runProcess(request("/bin/sh", useWorkspace()));
    expect(outcome).toMatchObject({
      end: { kind: "exited", exitCode: 0, signal: null },
      stdout: { text: "hi\n", totalBytes: 3, droppedBytes: 0 },
      survivors: [],
      ended: 0,
    });
  });
});
