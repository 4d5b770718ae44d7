// Over 400 lines on purpose: the rule cases of seed 000 as one table, each decided by the kernel,
// so a change to the parser or the rules shows against the whole table.
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Session } from "@pablo/kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandRulesLayer, createShellTool } from "./index.js";
import { sessionFor } from "./test-support/kernel.js";
import { which } from "./test-support/which.js";
import { useWorkspace } from "./test-support/workspace.js";

// `allow:<rule>`, `deny:<rule>`, or `unproven:<construct>` (a prefix of the construct's name).
type Expected = `allow:${string}` | `deny:${string}` | `unproven:${string}`;

const NOT_ALLOWED = "deny:default";

const cases: ReadonlyArray<readonly [string, Expected]> = [
  // Plain commands matched by absolute executable and literal arguments.
  ["git status", "allow:git-status"],
  ["git status --short", "allow:git-status"],
  ["git  status", "allow:git-status"],
  ["git\tstatus", "allow:git-status"],
  ["git status -- 'a b'", "allow:git-status"],
  ["git status --porcelain=v2", "allow:git-status"],
  ["git status FOO=1", "allow:git-status"],
  ["git log --oneline", "allow:git-log-oneline"],
  ["git log --oneline -p", NOT_ALLOWED],
  ["git log", NOT_ALLOWED],
  ["git", NOT_ALLOWED],
  ["git push origin main", "allow:git-push"],
  ["git push --force", "deny:git-push-force"],
  ["git push --force origin", "deny:git-push-force"],
  ["git push origin --force", "allow:git-push"],
  ["git status --ignored", "deny:git-status-ignored"],
  ["git status --ignored .", "allow:git-status"],
  ["git diff --output=/tmp/anything", "allow:git-diff"],
  ["git diff HEAD~1", "allow:git-diff"],
  ["git -c core.pager=less status", NOT_ALLOWED],
  ["git --git-dir=/elsewhere status", NOT_ALLOWED],
  ["rm -rf /", NOT_ALLOWED],
  ["ls", "allow:ls"],
  ["ls -la", "allow:ls"],
  ["ls a#b", "allow:ls"],
  ["ls 'a b' \"c d\" e\\ f", "allow:ls"],
  ["cat /etc/passwd", "allow:cat"],
  ["wc -l README.md", "allow:wc"],
  ['grep -r "foo bar" .', "allow:grep"],
  ["echo hi", "allow:echo"],
  ["echo ''", "allow:echo"],
  ['echo "a" "b" \'c\'', "allow:echo"],
  ["true", "allow:true"],
  ["true x", NOT_ALLOWED],
  ["   ", "unproven:empty command line"],
  // Quoting tricks resolve to the word the shell runs.
  ["'g''it' status", "allow:git-status"],
  ['"git" status', "allow:git-status"],
  ['g"it" "sta"tus', "allow:git-status"],
  ["\\git status", "allow:git-status"],
  ["\\g\\i\\t status", "allow:git-status"],
  ["git 'status'", "allow:git-status"],
  ['git "status"', "allow:git-status"],
  ["git stat\\\nus", "allow:git-status"],
  ["'git status'", "unproven:command not found"],
  ["'' status", "unproven:empty command word"],
  ["'FOO=1' git status", "unproven:command not found"],
  ["echo '$HOME'", "allow:echo"],
  ['echo "\\$HOME"', "allow:echo"],
  ["echo \\$HOME", "allow:echo"],
  ['echo "a\\"b"', "allow:echo"],
  ["echo 'a\"b'", "allow:echo"],
  ['echo "it\'s"', "allow:echo"],
  ["echo a\\ b", "allow:echo"],
  ['echo \\"', "allow:echo"],
  ['echo "a\\\\b"', "allow:echo"],
  ['echo "\\a"', "allow:echo"],
  ["ls '*'", "allow:ls"],
  ['ls "*.txt"', "allow:ls"],
  ["ls \\*", "allow:ls"],
  ["ls '~'", "allow:ls"],
  ["ls \\~", "allow:ls"],
  // Executables named by path.
  ["/usr/bin/git status", "allow:git-status"],
  ["/bin/git status", "allow:git-status"],
  ["/usr/bin/../bin/git status", "allow:git-status"],
  ["/usr/bin/./git status", "allow:git-status"],
  ["/usr/bin//git status", "allow:git-status"],
  ["/usr/bin/git/ status", "unproven:not an executable file"],
  ["/nonexistent/dir/git status", "unproven:executable not found"],
  ["./build.sh", "allow:build"],
  ["./build.sh --flag", "allow:build"],
  ['"./build.sh"', "allow:build"],
  ["'./build.sh'", "allow:build"],
  ["sub/../build.sh", "allow:build"],
  ["./sub/../build.sh", "allow:build"],
  ["build.sh", "unproven:command not found"],
  ["./missing.sh", NOT_ALLOWED],
  ["sub/build.sh", NOT_ALLOWED],
  ["$PWD/build.sh", "unproven:parameter expansion"],
  ["/usr/bin/env --version", "allow:env-version"],
  // Wrappers are executables with their own rules, never unwrapped.
  ["env --version", "allow:env-version"],
  ["env git status", NOT_ALLOWED],
  ["timeout 5 git status", NOT_ALLOWED],
  ["nice git status", NOT_ALLOWED],
  ["ionice git status", NOT_ALLOWED],
  ["stdbuf -o0 git status", NOT_ALLOWED],
  ["xargs git status", NOT_ALLOWED],
  ["nsenter git status", NOT_ALLOWED],
  ["chroot / git status", NOT_ALLOWED],
  ["nohup git status", NOT_ALLOWED],
  ["setsid git status", NOT_ALLOWED],
  ["sh -c ls", NOT_ALLOWED],
  ["bash -c 'git status'", NOT_ALLOWED],
  ["sudo git status", "unproven:command not found"],
  ["exec git status", "unproven:shell builtin exec"],
  ["command git status", "unproven:shell builtin command"],
  ["eval git status", "unproven:shell builtin eval"],
  [". ./build.sh", "unproven:shell builtin ."],
  ["source ./build.sh", "unproven:shell builtin source"],
  ["builtin echo hi", "unproven:shell builtin builtin"],
  ["cd / && ls", "unproven:shell builtin cd"],
  [": ok", "unproven:shell builtin :"],
  ["export A=1", "unproven:shell builtin export"],
  ["set -x", "unproven:shell builtin set"],
  ["trap ls EXIT", "unproven:shell builtin trap"],
  ["alias ls=rm", "unproven:shell builtin alias"],
  ["read x", "unproven:shell builtin read"],
  ["printf -v PATH /tmp", "unproven:printf option -v"],
  ["printf -vX y", "unproven:printf option -v"],
  ["kill -9 1", NOT_ALLOWED],
  ["test -f x", NOT_ALLOWED],
  ["'[' -f x ']'", NOT_ALLOWED],
  // Lists and pipelines: every simple command must be allowed.
  ["git status && ls", "allow:ls"],
  ["git status; ls", "allow:ls"],
  ["git status || ls", "allow:ls"],
  ["git status | wc -l", "allow:wc"],
  ["echo a|wc", "allow:wc"],
  ["echo a&&ls", "allow:ls"],
  ["echo a;ls", "allow:ls"],
  ["git status\nls", "allow:ls"],
  ["git status &&\nls", "allow:ls"],
  ["git status;", "allow:git-status"],
  ["ls\n\n", "allow:ls"],
  ["\nls", "allow:ls"],
  ["git status; rm x", NOT_ALLOWED],
  ["git status || rm x", NOT_ALLOWED],
  ["ls | rm", NOT_ALLOWED],
  ["ls -la;rm -rf x", NOT_ALLOWED],
  ["git status && git push --force", "deny:git-push-force"],
  ["; git status", "unproven:empty command"],
  ["git status\n;ls", "unproven:empty command"],
  ["git status | | ls", "unproven:empty command"],
  ["ls ||| wc", "unproven:empty command"],
  ["git status &&", "unproven:incomplete list"],
  ["git status |", "unproven:incomplete list"],
  ["git status ;; ls", "unproven:control flow"],
  // Background, substitution and expansion.
  ["git status &", "unproven:background &"],
  ["git status & ls", "unproven:background &"],
  ["echo a &&& ls", "unproven:background &"],
  ["echo $(id)", "unproven:command substitution"],
  ['echo "$(id)"', "unproven:command substitution"],
  ["git status $(rm -rf x)", "unproven:command substitution"],
  ["echo `id`", "unproven:backticks"],
  ['echo "`id`"', "unproven:backticks"],
  ["echo $HOME", "unproven:parameter expansion"],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template.
  ["echo ${HOME}", "unproven:parameter expansion"],
  ['echo "$HOME"', "unproven:parameter expansion"],
  ["echo $1", "unproven:parameter expansion"],
  ["echo $", "unproven:parameter expansion"],
  ["echo $((1+1))", "unproven:arithmetic expansion"],
  ["echo $[1+1]", "unproven:arithmetic expansion"],
  ["(( 1 ))", "unproven:arithmetic expansion"],
  ["echo $'a'", "unproven:ANSI-C quoting"],
  ['echo $"a"', "unproven:locale quoting"],
  ["cat <(ls)", "unproven:process substitution"],
  ["tee >(ls)", "unproven:process substitution"],
  // Globbing, tilde and brace expansion.
  ["ls *", "unproven:globbing"],
  ["ls ?.txt", "unproven:globbing"],
  ["ls [ab]", "unproven:globbing"],
  ["grep foo *.ts", "unproven:globbing"],
  ["ls ~", "unproven:tilde expansion"],
  ["ls ~/x", "unproven:tilde expansion"],
  ["ls a=~/x", "unproven:tilde expansion"],
  ["ls --dir=~/x", "unproven:tilde expansion"],
  ["ls x:~/y", "unproven:tilde expansion"],
  ["echo {a,b}", "unproven:brace expansion"],
  ["echo a{b,c}", "unproven:brace expansion"],
  ["echo {1..3}", "unproven:brace expansion"],
  // Redirections and here-documents.
  ["ls > out", "unproven:redirection"],
  ["ls >> out", "unproven:redirection"],
  ["echo hi>x", "unproven:redirection"],
  ["ls 2>&1", "unproven:redirection"],
  ["ls < in", "unproven:redirection"],
  ["ls &> out", "unproven:redirection"],
  ["ls |& wc", "unproven:redirection"],
  ["git status >/dev/null", "unproven:redirection"],
  ["cat <<EOF\nx\nEOF", "unproven:here-document"],
  ["cat <<<word", "unproven:here-document"],
  // Subshells, groups, control flow and functions.
  ["(ls)", "unproven:subshell"],
  ["ls)", "unproven:subshell"],
  ["{ ls; }", "unproven:group"],
  ["f() { ls; }", "unproven:function definition"],
  ["f () { ls; }", "unproven:function definition"],
  ["function f { ls; }", "unproven:function definition"],
  ["if true; then ls; fi", "unproven:control flow"],
  ["for x in a; do ls; done", "unproven:control flow"],
  ["while true; do ls; done", "unproven:control flow"],
  ["until false; do ls; done", "unproven:control flow"],
  ["case x in x) ls;; esac", "unproven:control flow"],
  ["select x in a; do ls; done", "unproven:control flow"],
  ["time ls", "unproven:control flow"],
  ["coproc ls", "unproven:control flow"],
  ["ls; then", "unproven:control flow"],
  ["! ls", "unproven:negation !"],
  ["[[ -f x ]]", "unproven:conditional expression [["],
  // Assignment prefixes and comments.
  ["FOO=1 git status", "unproven:assignment prefix"],
  ["GIT_DIR=/tmp git status", "unproven:assignment prefix"],
  ["FOO= git status", "unproven:assignment prefix"],
  ['FOO="a b" git status', "unproven:assignment prefix"],
  ["git status; FOO=1 ls", "unproven:assignment prefix"],
  ["git status # comment", "unproven:comment"],
  ["# only a comment", "unproven:comment"],
  // Characters that read differently from how the shell runs them.
  ["git status\u0007", "unproven:control character"],
  ["git status\r", "unproven:control character"],
  ["git status\u0000", "unproven:control character"],
  ["git status \u001b[2K", "unproven:control character"],
  ["git status\u200b", "unproven:control character"],
  ["git status \u202e", "unproven:control character"],
  ["git\u00a0status", "unproven:non-ASCII whitespace"],
  ["git status\u3000", "unproven:non-ASCII whitespace"],
  ["git\u2028status", "unproven:non-ASCII whitespace"],
  ["echo '\u00a0'", "unproven:non-ASCII whitespace"],
  ["echo '\ud800'", "unproven:invalid Unicode"],
  // Unfinished input.
  ["git status 'unterminated", "unproven:unterminated quote"],
  ['git status "unterminated', "unproven:unterminated quote"],
  ["git status \\", "unproven:trailing backslash"],
  [`echo ${"a".repeat(9000)}`, "unproven:command longer than 8192 characters"],
];

describe("command rules from [options.shell.commands], decided by the kernel", () => {
  let session: Session;
  let workspace = "";
  beforeAll(() => {
    workspace = realpathSync(mkdtempSync(join(tmpdir(), "pablo-shell-rules-")));
    mkdirSync(`${workspace}/sub`);
    writeFileSync(`${workspace}/build.sh`, "#!/bin/sh\necho built\n");
    chmodSync(`${workspace}/build.sh`, 0o755);
    const git = which("git");
    const layer = commandRulesLayer("deployment", {
      default: "deny",
      allow: [
        { id: "git-status", executable: git, args: ["status"], match: "prefix" },
        { id: "git-diff", executable: git, args: ["diff"], match: "prefix" },
        { id: "git-push", executable: git, args: ["push"], match: "prefix" },
        { id: "git-log-oneline", executable: git, args: ["log", "--oneline"], match: "exact" },
        { id: "ls", executable: which("ls"), args: [], match: "prefix" },
        { id: "cat", executable: which("cat"), args: [], match: "prefix" },
        { id: "wc", executable: which("wc"), args: [], match: "prefix" },
        { id: "grep", executable: which("grep"), args: [], match: "prefix" },
        { id: "echo", executable: which("echo"), args: [], match: "prefix" },
        { id: "true", executable: which("true"), args: [], match: "exact" },
        { id: "env-version", executable: which("env"), args: ["--version"], match: "exact" },
        { id: "build", executable: `${workspace}/build.sh`, args: [], match: "prefix" },
      ],
      deny: [
        { id: "git-push-force", executable: git, args: ["push", "--force"], match: "prefix" },
        { id: "git-status-ignored", executable: git, args: ["status", "--ignored"], match: "exact" },
      ],
    });
    session = sessionFor(createShellTool({ workspace }), [layer]).session;
  });
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));

  it("covers at least 150 command lines", () => {
    expect(cases.length).toBeGreaterThanOrEqual(150);
  });

  it.each(cases)("%j is %s", async (command, expected) => {
    const d = await session.dryRun({ tool: "shell_run", args: { command } });
    const [kind, detail] = splitExpected(expected);
    if (kind === "unproven") {
      expect(d).toMatchObject({ decision: "deny", layer: "deployment", rule: "unproven" });
      expect(d.reason).toContain(`command with ${detail}`);
    } else {
      expect(d).toMatchObject({ decision: kind, rule: detail });
      if (kind === "deny") expect(d.layer).toBe("deployment");
    }
  });

  it("allows every unproven construct when no layer restricts commands", async () => {
    const workspace = useWorkspace();
    const tool = createShellTool({ workspace });
    const { session } = sessionFor(tool);
    for (const command of ["echo $(id)", "ls > out", "FOO=1 git status", "cd / && ls"]) {
      expect(await session.dryRun({ tool: "shell_run", args: { command } })).toMatchObject({
        decision: "allow",
      });
    }
  });

  it("denies unproven constructs in a layer that only denies, since it cannot prove the deny does not match", async () => {
    const workspace = useWorkspace();
    const layer = commandRulesLayer("deployment", {
      deny: [{ id: "no-rm", executable: which("rm"), args: [], match: "prefix" }],
    });
    const { session } = sessionFor(createShellTool({ workspace }), [layer]);
    expect(await session.dryRun({ tool: "shell_run", args: { command: "ls" } })).toMatchObject({
      decision: "allow",
    });
    expect(await session.dryRun({ tool: "shell_run", args: { command: "rm x" } })).toMatchObject({
      decision: "deny",
      rule: "no-rm",
    });
    expect(await session.dryRun({ tool: "shell_run", args: { command: "$(echo rm) x" } })).toMatchObject({
      decision: "deny",
      rule: "unproven",
    });
  });

  it("refuses lists and pipelines altogether under compound = deny, whatever the rules allow", async () => {
    const workspace = useWorkspace();
    const tool = createShellTool({ workspace, options: { compound: "deny" } });
    const { session } = sessionFor(tool);
    expect(await session.dryRun({ tool: "shell_run", args: { command: "ls -la" } })).toMatchObject({
      decision: "allow",
    });
    for (const command of ["ls; ls", "ls && ls", "ls || ls", "ls | wc", "ls\nls", "ls & ls"]) {
      const d = await session.dryRun({ tool: "shell_run", args: { command } });
      expect(d, command).toMatchObject({ decision: "deny", code: "TOOL_DENIED" });
      expect(d.reason).toContain("compound");
    }
  });

  it("rejects a rule with a relative executable or a duplicate ID when the layer is built", () => {
    expect(() =>
      commandRulesLayer("d", { allow: [{ id: "git", executable: "git", args: [], match: "prefix" }] }),
    ).toThrow(/absolute/);
    const rule = { id: "same", executable: "/usr/bin/git", args: [], match: "prefix" as const };
    expect(() => commandRulesLayer("d", { allow: [rule], deny: [rule] })).toThrow(/duplicate/);
  });
});

describe("a line with no command at all", () => {
  const blank = [
    " ",
    "   ",
    "\t",
    "\n",
    "\n\n\n",
    " \t \n ",
    "\t\n\t",
    "\\\n",
    " \\\n ",
    "\n\\\n\n",
    " ".repeat(4000),
  ];
  const layers = {
    "a non-empty allow list": {
      allow: [{ id: "ls", executable: which("ls"), args: [], match: "prefix" as const }],
    },
    "a deny-only list": {
      deny: [{ id: "no-rm", executable: which("rm"), args: [], match: "prefix" as const }],
    },
    'default = "deny"': { default: "deny" as const },
  };

  for (const [name, commands] of Object.entries(layers)) {
    it.each(blank)(`%j is denied as unproven under ${name}`, async (command) => {
      const { session } = sessionFor(createShellTool({ workspace: useWorkspace() }), [
        commandRulesLayer("deployment", commands),
      ]);
      const d = await session.dryRun({ tool: "shell_run", args: { command } });
      expect(d).toMatchObject({ decision: "deny", layer: "deployment", rule: "unproven" });
      expect(d.reason).toContain("command with empty command line");
    });
  }

  it("is refused by the schema when empty, and a real call under an allow list runs nothing", async () => {
    const workspace = useWorkspace();
    const layer = commandRulesLayer("deployment", layers["a non-empty allow list"]);
    const { session, audit } = sessionFor(createShellTool({ workspace }), [layer]);
    expect(await session.dryRun({ tool: "shell_run", args: { command: "" } })).toMatchObject({
      decision: "deny",
      code: "INVALID_ARGUMENT",
    });
    const { result } = await session.call({ tool: "shell_run", args: { command: " \n " } });
    expect(result).toMatchObject({ ok: false, error: { code: "TOOL_DENIED" } });
    expect(audit.records.at(-1)?.durationMs).toBe(0);
  });

  it("runs as nothing at all when no layer restricts commands", async () => {
    const { session } = sessionFor(createShellTool({ workspace: useWorkspace() }));
    const { result } = await session.call({ tool: "shell_run", args: { command: "  \n\t" } });
    expect(result).toMatchObject({ ok: true, data: { exitCode: 0, stdout: "", stderr: "" } });
  });
});

function splitExpected(expected: Expected): [string, string] {
  const at = expected.indexOf(":");
  return [expected.slice(0, at), expected.slice(at + 1)];
}
