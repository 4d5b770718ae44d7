import { describe, expect, it } from "vitest";
import { createShellTool } from "./index.js";
import { createRedactor } from "./redact.js";
import { redactingStream } from "./redact-output.js";
import { sessionFor } from "./test-support/kernel.js";
import { useWorkspace } from "./test-support/workspace.js";

const AWS = "AKIAIOSFODNN7EXAMPLE";
const BEARER = "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl";

describe('[options.shell] redact = ["secrets"]', () => {
  it("redacts secrets in stdout, stderr and every streamed event a real command produced", async () => {
    const workspace = useWorkspace();
    const tool = createShellTool({ workspace, options: { redact: ["secrets"] } });
    const { session, events } = sessionFor(tool);
    const command = `printf 'key ${AWS}\\n'; printf '${BEARER}\\n' >&2; sleep 0.2; printf 'ok\\n'`;
    const { result, serialized } = await session.call({ tool: "shell_run", args: { command } });
    expect(result).toMatchObject({ ok: true });
    expect(serialized).not.toContain(AWS);
    expect(serialized).not.toContain("eyJzdWIiOiJ4In0");
    expect(serialized).toContain("[REDACTED]");
    expect(serialized).toContain("ok");
    // The command line itself is the caller's (content capture records it); the output is not.
    const streamed = JSON.stringify(events.events.filter((e) => e.type !== "tool.started"));
    expect(streamed).toContain("key [REDACTED]");
    expect(streamed).not.toContain(AWS);
    expect(streamed).not.toContain("eyJzdWIiOiJ4In0");
  });

  it("leaves output alone without the option, and redacts a failed command's details too", async () => {
    const workspace = useWorkspace();
    const plain = sessionFor(createShellTool({ workspace }));
    const shown = await plain.session.call({ tool: "shell_run", args: { command: `echo ${AWS}` } });
    expect(shown.serialized).toContain(AWS);
    const redacting = sessionFor(createShellTool({ workspace, options: { redact: ["secrets"] } }));
    const failed = await redacting.session.call({
      tool: "shell_run",
      args: { command: `echo ${AWS}; exit 3` },
    });
    expect(failed.result).toMatchObject({ ok: false, error: { code: "TOOL_FAILED" } });
    expect(failed.serialized).not.toContain(AWS);
  });

  it("streams whole lines, so a secret split across two chunks is still caught", () => {
    const sent: string[] = [];
    const stream = redactingStream(createRedactor({ builtin: ["secrets"] }), (_kind, text) =>
      sent.push(text),
    );
    stream.push("stdout", `key ${AWS.slice(0, 9)}`);
    stream.push("stdout", `${AWS.slice(9)}\nnext `);
    stream.flush();
    expect(sent.join("")).not.toContain(AWS);
    expect(sent).toEqual(["key [REDACTED]\n", "next "]);
  });
});
