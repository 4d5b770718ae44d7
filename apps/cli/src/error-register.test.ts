import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { AgentErrorCode, ModelErrorCode, SubagentCode } from "@pablo/agent";
import { BrowserErrorCode } from "@pablo/browser";
import { ConfigErrorCode } from "@pablo/config";
import { FsErrorCode } from "@pablo/fs";
import { AuditErrorCode, CredentialErrorCode, ErrorCode, HostErrorCode, UrlCode } from "@pablo/kernel";
import { McpAdmissionCode, McpDiagnosticCode, McpErrorCode, McpOAuthCode } from "@pablo/mcp";
import { PluginCode } from "@pablo/plugins";
import { ShellOptionsErrorCode } from "@pablo/shell";
import { SkillCode, SkillsErrorCode } from "@pablo/skills";
import { describe, expect, it } from "vitest";
import { CliErrorCode } from "./error-codes.js";

const repo = resolve(import.meta.dirname, "..", "..", "..");

/** Every register, by the package that owns it. The kernel's codes may be listed again elsewhere. */
const REGISTERS: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, string>>>>>> = {
  "@pablo/kernel": { ErrorCode, HostErrorCode, CredentialErrorCode, AuditErrorCode, UrlCode },
  "@pablo/config": { ConfigErrorCode },
  "@pablo/agent": { AgentErrorCode, ModelErrorCode, SubagentCode },
  "@pablo/fs": { FsErrorCode },
  "@pablo/skills": { SkillCode, SkillsErrorCode },
  "@pablo/plugins": { PluginCode },
  "@pablo/browser": { BrowserErrorCode },
  "@pablo/shell": { ShellOptionsErrorCode },
  "@pablo/mcp": { McpDiagnosticCode, McpErrorCode, McpAdmissionCode, McpOAuthCode },
  pablo: { CliErrorCode },
};

/** The `src` folders the scan reads: every package that has registered its codes. */
const SOURCES = [
  "packages/kernel",
  "packages/config",
  "packages/agent",
  "packages/skills",
  "packages/plugins",
  "packages/fs",
  "packages/tool-search",
  "packages/browser",
  "packages/shell",
  "packages/mcp",
  "plugins/web",
  "apps/cli",
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/**
 * Code-shaped literals a source hands on as a code: to `fail(`, to `new PabloError(` (or any
 * `...Error(`/`...Failure(` whose last argument is a code), and, outside tests, as a `code:`
 * property or a `[CODE]` tag in a message.
 */
function codeLiterals(source: string, { isTest }: { isTest: boolean }): string[] {
  const patterns = [
    /\b(?:fail|PabloError)\(\s*["'`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)["'`]/g,
    /\b[A-Z]\w*(?:Error|Failure)\([^()]*,\s*["'`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)["'`]\s*\)/g,
  ];
  if (!isTest) {
    patterns.push(/\bcode:\s*["'`]([A-Z][A-Z0-9]*_[A-Z0-9_]+)["'`]/g);
    patterns.push(/["'`][^"'`\n]*\[([A-Z][A-Z0-9]*_[A-Z0-9_]+|USAGE)\][^"'`\n]*["'`]/g);
  }
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1] ?? ""));
}

function registered(): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const [pkg, registers] of Object.entries(REGISTERS)) {
    for (const [name, register] of Object.entries(registers)) {
      for (const code of Object.values(register))
        owners.set(code, [...(owners.get(code) ?? []), `${pkg} ${name}`]);
    }
  }
  return owners;
}

describe("the error registers of every package", () => {
  it("give each code one meaning: no code is defined by two packages, except by re-using the kernel's", () => {
    const kernel = new Set(Object.values(REGISTERS["@pablo/kernel"] ?? {}).flatMap((r) => Object.values(r)));
    const twice = [...registered()].filter(
      ([code, owners]) => !kernel.has(code) && new Set(owners.map((o) => o.split(" ")[0])).size > 1,
    );
    expect(twice).toEqual([]);
  });

  it("find a planted unregistered literal, the way the scan below reports it", () => {
    const planted = `fail("TOOL_EXPLODED", "m"); throw new AdmissionFailure("m", "NOT_A_CODE"); const e = { code: "STRAY_CODE" }; io.err("x [ROGUE_TAG]");`;
    expect(codeLiterals(planted, { isTest: false })).toEqual([
      "TOOL_EXPLODED",
      "NOT_A_CODE",
      "STRAY_CODE",
      "ROGUE_TAG",
    ]);
    expect(codeLiterals(planted, { isTest: true })).toEqual(["TOOL_EXPLODED", "NOT_A_CODE"]);
  });

  it("hold every code literal in the sources of every package", () => {
    const codes = registered();
    const self = resolve(import.meta.filename);
    const unregistered: string[] = [];
    for (const dir of SOURCES) {
      for (const file of sourceFiles(join(repo, dir, "src"))) {
        // This file and the kernel's own scan plant unregistered codes on purpose.
        if (file === self || file.endsWith("errors.test.ts")) continue;
        const text = readFileSync(file, "utf8");
        for (const code of codeLiterals(text, { isTest: file.endsWith(".test.ts") })) {
          if (!codes.has(code)) unregistered.push(`${relative(repo, file)}: ${code}`);
        }
      }
    }
    expect(unregistered).toEqual([]);
  });
});
