import { createRedactor, REDACTED } from "@pablo/shell/redact";
import { describe, expect, it } from "vitest";
import { applyFilters, filterProblem } from "./filters.js";
import { callAction, loadSigned } from "./test-support/catalog-fixture.js";

const SECRETS = [
  "aws id AKIAIOSFODNN7EXAMPLE",
  "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  "google AIzaSyA-1234567890abcdefghijklmnopqrstu",
  "openai sk-proj-abcdefghijklmnopqrstuvwx",
  "anthropic sk-ant-api03-abcdefghijklmnopqrst",
  "github ghp_abcdefghijklmnopqrstuvwxyz0123456789",
  "Authorization: Bearer abc.def-ghi_jkl+mno",
  "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  "db postgres://app:hunter2secret@db.internal:5432/app",
  "Server=db;User Id=app;Password=hunter2;",
];

describe("redaction", () => {
  it.each(SECRETS)("redacts %s", (line) => {
    const out = createRedactor({ builtin: ["secrets"] })(line);
    expect(out).toContain(REDACTED);
    expect(out).not.toMatch(/EXAMPLE|hunter2|abcdefghijklmnop|dozjg|1234567890abc|ghi_jkl/);
  });

  it("redacts a private key block, and one cut off before its end marker", () => {
    const redact = createRedactor({ builtin: ["secrets"] });
    const block =
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
    expect(redact(`before\n${block}\nafter`)).toBe(`before\n${REDACTED}\nafter`);
    expect(redact("x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow")).toBe(`x\n${REDACTED}`);
  });

  it("applies declared RE2 patterns and refuses non-RE2 ones", () => {
    expect(createRedactor({ patterns: ["customer-[0-9]+"] })("id customer-42 ok")).toBe(`id ${REDACTED} ok`);
    expect(() => createRedactor({ patterns: ["(a)\\1"] })).toThrow(/RE2/);
    expect(() => createRedactor({ patterns: ["a".repeat(201)] })).toThrow(/200/);
  });

  it("leaves ordinary output alone", () => {
    const text = "load average: 0.10, 0.20\nMem: 1000 200 800\nGET /index.html 200\n";
    expect(createRedactor({ builtin: ["secrets"] })(text)).toBe(text);
  });
});

describe("filters", () => {
  it("makes tail, head and count exclusive by presence, count: false included", () => {
    const all = ["match", "exclude", "tail", "head", "count"] as const;
    expect(filterProblem({ head: 1, tail: 1 }, all)).toMatch(/mutually exclusive/);
    expect(filterProblem({ head: 1, count: false }, all)).toMatch(/mutually exclusive/);
    expect(filterProblem({ count: false }, all)).toBeUndefined();
    expect(filterProblem({ match: "x", exclude: "y", tail: 2 }, all)).toBeUndefined();
    expect(filterProblem({ head: 1 }, ["count"])).toMatch(/not declared/);
    expect(filterProblem({ match: "(a)\\1" }, all)).toMatch(/RE2/);
  });

  it("matches, excludes, then keeps head or tail, or counts", () => {
    const text = "a1\nb2\na3\na4\nb5\n";
    expect(applyFilters(text, { match: "^a" }).text).toBe("a1\na3\na4\n");
    expect(applyFilters(text, { match: "^a", exclude: "3" }).text).toBe("a1\na4\n");
    expect(applyFilters(text, { tail: 2 }).text).toBe("a4\nb5\n");
    expect(applyFilters(text, { head: 2, match: "a" }).text).toBe("a1\na3\n");
    expect(applyFilters(text, { count: true, match: "b" })).toEqual({ text: "", lines: 2, count: 2 });
  });

  it("runs a catastrophic pattern in linear time", () => {
    const line = `${"a".repeat(50_000)}!`;
    const started = performance.now();
    expect(applyFilters(`${line}\n`.repeat(4), { match: "(a+)+$" }).lines).toBe(0);
    expect(applyFilters(`${line}\n`, { match: "(a|aa)*b" }).lines).toBe(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe("filters on action output", () => {
  const CATALOG = `
name: leak
description: Prints a credential among other lines.
risk: read
exec: [/usr/bin/printf, "user=alice\\ntoken=abcd1234efgh\\nkey AKIAIOSFODNN7EXAMPLE\\nend\\n"]
filters: [match, count]
redact:
  builtin: [secrets]
`;

  it("redacts before filtering: a filter cannot find the secret", async () => {
    const { action } = loadSigned(CATALOG);
    const unfiltered = await callAction(action("leak"), {});
    const stdout = (unfiltered as unknown as { data: { steps: { stdout: string }[] } }).data.steps[0]?.stdout;
    expect(stdout).toBe(`user=alice\ntoken=${REDACTED}\nkey ${REDACTED}\nend\n`);
    const probed = await callAction(action("leak"), { match: "AKIA", count: true });
    expect(probed).toMatchObject({ ok: true, data: { steps: [{ count: 0 }] } });
    const byPrefix = await callAction(action("leak"), { match: "token=abcd" });
    expect(byPrefix).toMatchObject({ ok: true, data: { steps: [{ stdout: "" }] } });
  });

  it("refuses a filter the action does not declare", async () => {
    const { action } = loadSigned(CATALOG);
    expect(await callAction(action("leak"), { tail: 1 })).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT" },
    });
  });
});
