import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ErrorCode } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { ActionsErrorCode } from "./errors.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test-support" ? [] : sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("the actions error register", () => {
  it("registers exactly these codes", () => {
    expect(Object.keys(ActionsErrorCode)).toEqual([
      "CATALOG_UNREADABLE",
      "ACTION_INVALID",
      "ACTION_UNSIGNED",
      "SIGNATURE_INVALID",
      "SIGNATURE_UNTRUSTED_KEY",
      "ACTION_DUPLICATE",
      "INTERPRETER_REFUSED",
      "INTERPRETER_ALLOWED",
      "EXECUTABLE_MISSING",
      "BUILTIN_UNAVAILABLE",
      "QUERY_REFUSED",
      "QUERY_FAILED",
      "URL_REFUSED",
      "CREDENTIALS_UNSAFE",
    ]);
    for (const code of Object.keys(ActionsErrorCode)) expect(code in ErrorCode).toBe(false);
  });

  it("writes no code literal that is not registered", () => {
    const registered = new Set([...Object.keys(ActionsErrorCode), ...Object.keys(ErrorCode)]);
    const unregistered: string[] = [];
    for (const file of sources(new URL(".", import.meta.url).pathname)) {
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(
        /(?:fail\(|code: |refuse\(|error\([^,]*, [^,]*, )"([A-Z][A-Z0-9_]+)"/g,
      )) {
        if (!registered.has(match[1] ?? "")) unregistered.push(`${file}: ${match[1]}`);
      }
    }
    expect(unregistered).toEqual([]);
  });
});
