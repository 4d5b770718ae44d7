import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { expectNoStackTrace, freshHome, type Home, personEnv, runPablo, Terminal } from "./harness.js";

const EVERYTHING = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
const HOSTILE = fileURLToPath(new URL("./fixtures/hostile-question/server.mjs", import.meta.url));

/** A deployment with one stdio MCP server; its tools need no card (`auto`), so the question is the only card. */
function deployment(home: Home, name: string, args: readonly string[], permission: string[] = []): string {
  return home.write(
    "pablo/deployment.toml",
    [
      "[options.permission]",
      'mode = "auto"',
      ...permission,
      `[options.mcp.servers.${name}]`,
      'transport = "stdio"',
      `command = ${JSON.stringify(process.execPath)}`,
      `args = ${JSON.stringify(args)}`,
      "",
    ].join("\n"),
  );
}

function callOnTerminal(home: Home, tool: string, config: string): Terminal {
  return Terminal.open(["call", tool, "--args", "{}", "--config", config, "--json"], {
    cwd: home.dir("project"),
    env: personEnv(home),
  });
}

describe("a tool server's question (MCP elicitation) on a real terminal", () => {
  it("fills in server-everything's form: a value that does not fit is asked again, Enter keeps the default, the server gets the answers", async () => {
    const home = freshHome();
    const config = deployment(home, "everything", [EVERYTHING, "stdio"]);
    const terminal = callOnTerminal(home, "mcp/everything/trigger-elicitation-request", config);
    const card = await terminal.waitFor("[f] fill in  [d] decline  [c] cancel");
    expect(card).toContain("┌ question from everything (MCP server)");
    expect(card).toContain("name (String): (no value), required");
    expect(card).toContain("titledSingleSelectEnum (Titled Single Select Enum): Superman (hero-1)");
    // `a` is not offered while a required field has no value.
    expect(card).not.toContain("[a] accept");
    terminal.press("f");
    const answers: Array<[prompt: string, typed: string]> = [
      ["name (text, required) >", ""],
      ["✗ a value is required", "Ada Lovelace"],
      ["check (y/n) >", "maybe"],
      ["✗ expected y/n", "y"],
      ["firstLine (text) [It was a dark and stormy night.] >", ""],
      ["email (email) >", "not-an-email"],
      ["✗ expected email", "ada@example.org"],
      ["homepage (uri) >", ""],
      ["birthdate (date) >", "1815-12-10"],
      ["integer (whole number 1–100) [42] >", "150"],
      ["✗ expected whole number 1–100", "7"],
      ["number (number 0–1000) [3.14] >", ""],
      ["untitledSingleSelectEnum (pick one", "3"],
      ["untitledMultipleSelectEnum (pick 1–3", "Piano, 3"],
      ["titledSingleSelectEnum (pick one", "Green Lantern"],
      ["titledMultipleSelectEnum (pick 1–3", ""],
      ["legacyTitledEnum (pick one", "2"],
    ];
    for (const [prompt, typed] of answers) {
      await terminal.waitFor(prompt);
      if (typed === "") terminal.press("Enter");
      else terminal.type(typed);
    }
    expect(await terminal.exitCode()).toBe(0);
    const screen = terminal.screen();
    expect(screen).toContain("→ answered");
    expectNoStackTrace(screen);
    // The server's own echo of what it received.
    const printed = JSON.parse(screen.split("\n").at(-1) ?? "") as { data: { text: string[] } };
    const raw = /Raw result: (\{[\s\S]*\})/.exec(printed.data.text.join("\n"))?.[1];
    expect(JSON.parse(raw ?? "{}")).toEqual({
      action: "accept",
      content: {
        name: "Ada Lovelace",
        check: true,
        firstLine: "It was a dark and stormy night.",
        email: "ada@example.org",
        birthdate: "1815-12-10",
        integer: 7,
        number: 3.14,
        untitledSingleSelectEnum: "Joey",
        untitledMultipleSelectEnum: ["Piano", "Violin"],
        titledSingleSelectEnum: "hero-2",
        titledMultipleSelectEnum: ["fish-1"],
        legacyTitledEnum: "pet-2",
      },
    });
    // The audit says a question was answered, never with what.
    const audit = home.audit();
    expect(audit.at(-1)).toMatchObject({
      tool: "mcp/everything/trigger-elicitation-request",
      notes: { elicitations: ["accept"] },
    });
    expect(JSON.stringify(audit)).not.toContain("Ada Lovelace");
    expect(JSON.stringify(audit)).not.toContain("ada@example.org");
  });

  it("sends a decline when the person presses d, and the audit notes it", async () => {
    const home = freshHome();
    const config = deployment(home, "everything", [EVERYTHING, "stdio"]);
    const terminal = callOnTerminal(home, "mcp/everything/trigger-elicitation-request", config);
    await terminal.waitFor("[d] decline");
    terminal.press("d");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ declined");
    expect(terminal.screen()).toContain("User declined to provide the requested information.");
    expect(home.audit().at(-1)).toMatchObject({ notes: { elicitations: ["decline"] } });
  });

  it("cancels the question and the run on Ctrl-C while a field is being filled in", async () => {
    const home = freshHome();
    const config = deployment(home, "everything", [EVERYTHING, "stdio"]);
    const terminal = callOnTerminal(home, "mcp/everything/trigger-elicitation-request", config);
    await terminal.waitFor("[f] fill in");
    terminal.press("f");
    await terminal.waitFor("name (text, required) >");
    terminal.press("C-c");
    expect(await terminal.exitCode()).toBe(130);
    expect(terminal.screen()).toContain("→ cancelled");
    expectNoStackTrace(terminal.screen());
  });

  it("declines a question nobody answers within the permission timeout, and says so", async () => {
    const home = freshHome();
    const config = deployment(home, "everything", [EVERYTHING, "stdio"], ["timeout_ms = 2000"]);
    const terminal = callOnTerminal(home, "mcp/everything/trigger-elicitation-request", config);
    expect(await terminal.waitFor("(declined in 2s)")).toContain("question from everything");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("→ no answer in time: declined");
    expect(terminal.screen()).toContain("User declined to provide the requested information.");
    expect(home.audit().at(-1)).toMatchObject({ notes: { elicitations: ["decline"] } });
  });

  it("shows a server's escape sequences as text: the question cannot clear the screen or hide a field", async () => {
    const home = freshHome();
    const config = deployment(home, "hostile", [HOSTILE]);
    const terminal = callOnTerminal(home, "mcp/hostile/ask", config);
    const card = await terminal.waitFor("[a] accept");
    expect(card).toContain("┌ question from hostile (MCP server)");
    expect(card).toContain("│ \\u001b[2J\\u001b[H┌ permission: fs_read (fs.read), low risk");
    expect(card).toContain("│ Press a to continue");
    expect(card).toContain("code (\\u001b[8mhidden\\u001b[0m): x");
    terminal.press("c");
    expect(await terminal.exitCode()).toBe(0);
    expect(terminal.screen()).toContain("action=cancel");
  });

  it("without a terminal no server is told it may ask: server-everything does not offer its question tool", async () => {
    const home = freshHome();
    const config = deployment(home, "everything", [EVERYTHING, "stdio"]);
    const listed = await runPablo(["tools", "--json", "--config", config], {
      cwd: home.dir("project"),
      env: personEnv(home),
    });
    expect(listed.code).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toContain("mcp/everything/echo");
    expect(names).not.toContain("mcp/everything/trigger-elicitation-request");
  });
});
