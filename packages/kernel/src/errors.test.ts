import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  AuditErrorCode,
  CredentialErrorCode,
  ErrorCode,
  HostErrorCode,
  type ToolErrorCode,
} from "./index.js";

const REGISTERED = new Set<string>([
  ...Object.values(ErrorCode),
  ...Object.values(HostErrorCode),
  ...Object.values(CredentialErrorCode),
  ...Object.values(AuditErrorCode),
]);

/**
 * Code-shaped string literals a source passes to `fail(` or `new PabloError(`, and, outside tests,
 * literals given as a `code:` property. Codes written through a register constant are not literals.
 */
function codeLiterals(
  source: string,
  { includeCodeProperties }: { includeCodeProperties: boolean },
): string[] {
  const patterns = [/\b(?:fail|PabloError)\(\s*["'`]([A-Z][A-Z0-9_]+)["'`]/g];
  if (includeCodeProperties) patterns.push(/\bcode:\s*["'`]([A-Z][A-Z0-9_]+)["'`]/g);
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1] ?? ""));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

describe("the kernel's error register", () => {
  it("lists every code once, each a constant equal to its name", () => {
    for (const register of [ErrorCode, HostErrorCode, CredentialErrorCode, AuditErrorCode]) {
      for (const [name, code] of Object.entries(register)) expect(code).toBe(name);
    }
    const all = [
      ...Object.values(ErrorCode),
      ...Object.values(HostErrorCode),
      ...Object.values(CredentialErrorCode),
      ...Object.values(AuditErrorCode),
    ];
    expect(new Set(all).size).toBe(all.length);
    expect(all).toMatchInlineSnapshot(`
      [
        "INVALID_ARGUMENT",
        "UNKNOWN_TOOL",
        "TOOL_DENIED",
        "TOOL_FAILED",
        "TOOL_TIMEOUT",
        "TOOL_CANCELLED",
        "TOOL_CLEANUP_FAILED",
        "NOT_FOUND",
        "ALREADY_EXISTS",
        "REVISION_CONFLICT",
        "OUTSIDE_WORKSPACE",
        "SYMLINK_REFUSED",
        "SPECIAL_FILE",
        "INVALID_UTF8",
        "LIMIT_EXCEEDED",
        "BUDGET_EXHAUSTED",
        "UNSUPPORTED_CONTENT",
        "PLUGIN_DISABLED_IN_PLAN",
        "DISABLED_IN_MODE",
        "SHELL_NOT_FOUND",
        "COMMAND_SHELL_CHANGED",
        "ARGUMENTS_TOO_LARGE",
        "TOOL_CONTRACT_VIOLATION",
        "INVALID_TOOL_DEFINITION",
        "OPEN_SCHEMA",
        "NAME_COLLISION",
        "INVALID_NAME",
        "CATALOG_FROZEN",
        "INVALID_POLICY",
        "CONTAINMENT_VIOLATION",
        "PROVIDER_FAILED",
        "INVALID_OPTIONS",
        "CREDENTIAL_NOT_FOUND",
        "CREDENTIAL_SCOPE",
        "CREDENTIAL_UNAVAILABLE",
        "AUDIT_RECORD_CHANGED",
        "AUDIT_RECORD_REMOVED",
        "AUDIT_RECORD_REORDERED",
        "AUDIT_RECORD_INSERTED",
        "AUDIT_WRITE_FAILED",
      ]
    `);
  });

  it("finds an unregistered code literal, the way the scan below would report it", () => {
    const planted = `return fail("TOOL_EXPLODED", "boom"); throw new PabloError("NOT_A_CODE_WE_HAVE", "x"); fail(ErrorCode.TOOL_FAILED, "ok"); const d = { code: "STRAY_CODE" };`;
    const found = codeLiterals(planted, { includeCodeProperties: true });
    expect(found).toEqual(["TOOL_EXPLODED", "NOT_A_CODE_WE_HAVE", "STRAY_CODE"]);
    expect(found.filter((code) => !REGISTERED.has(code))).toHaveLength(3);
  });

  it("holds every code literal in the kernel's sources", () => {
    const src = dirname(fileURLToPath(import.meta.url));
    const unregistered: string[] = [];
    const self = fileURLToPath(import.meta.url);
    // This file plants unregistered codes on purpose, to prove the scan finds them.
    for (const file of sourceFiles(src).filter((f) => f !== self)) {
      const isTest = file.endsWith(".test.ts");
      for (const code of codeLiterals(readFileSync(file, "utf8"), { includeCodeProperties: !isTest })) {
        if (!REGISTERED.has(code)) unregistered.push(`${relative(src, file)}: ${code}`);
      }
    }
    expect(unregistered).toEqual([]);
  });

  it("types ToolErrorInfo's code so registered codes complete and other packages' codes still compile", () => {
    const registered: ToolErrorCode = ErrorCode.TOOL_DENIED;
    const unregisteredYet: ToolErrorCode = "MCP_SERVER_GONE";
    expect([registered, unregisteredYet]).toEqual(["TOOL_DENIED", "MCP_SERVER_GONE"]);
  });
});
