import { compileValidator } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { actionTool } from "./action-tool.js";
import { callAction, loadSigned } from "./test-support/catalog-fixture.js";

const CATALOG = `
actions:
  - name: echo_word
    description: Print one word.
    risk: read
    params:
      word: { type: string, description: The word. }
      lines: { type: integer, description: Lines, optional: true, minimum: 1, maximum: 100 }
      loud: { type: boolean, description: Add a marker, optional: true }
    exec: [/usr/bin/printf, "[%s]", "{word}", { optional: ["{lines}"] }, { optional: [LOUD, "{loud}"] }]
    filters: [match]
  - name: dashed
    description: Accepts a leading dash.
    risk: read
    params:
      flag: { type: string, description: A flag, allow_leading_dash: true, pattern: "-[a-z]" }
    exec: [/usr/bin/printf, "[%s]", "{flag}"]
`;

describe("placeholders", () => {
  it("passes shell syntax through as one literal argument", async () => {
    const { action } = loadSigned(CATALOG);
    const result = await callAction(action("echo_word"), { params: { word: "; rm -rf / $(id) `id` | cat" } });
    expect(result).toMatchObject({
      ok: true,
      data: { steps: [{ stdout: "[; rm -rf / $(id) `id` | cat]" }] },
    });
  });

  it("includes an optional group only when its placeholders have values", async () => {
    const { action } = loadSigned(CATALOG);
    const plain = await callAction(action("echo_word"), { params: { word: "a" } });
    expect(plain).toMatchObject({ data: { steps: [{ stdout: "[a]" }] } });
    const full = await callAction(action("echo_word"), { params: { word: "a", lines: 3, loud: true } });
    expect(full).toMatchObject({ data: { steps: [{ stdout: "[a][3][LOUD]" }] } });
    const off = await callAction(action("echo_word"), { params: { word: "a", loud: false } });
    expect(off).toMatchObject({ data: { steps: [{ stdout: "[a]" }] } });
  });

  it("refuses a value that could be read as an option", async () => {
    const { action } = loadSigned(CATALOG);
    const result = await callAction(action("echo_word"), { params: { word: "--help" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT", message: expect.stringContaining('start with "-"') },
    });
  });

  it("accepts a leading dash only where the catalog allows it, and then only matching its RE2 pattern", async () => {
    const { action } = loadSigned(CATALOG);
    expect(await callAction(action("dashed"), { params: { flag: "-v" } })).toMatchObject({ ok: true });
    expect(await callAction(action("dashed"), { params: { flag: "--exec=x" } })).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("pattern") },
    });
  });

  it.each([
    ["NUL", "a\u0000b"],
    ["newline", "a\nb"],
    ["carriage return", "a\rb"],
  ])("refuses a %s in a value", async (_name, word) => {
    const { action } = loadSigned(CATALOG);
    expect(await callAction(action("echo_word"), { params: { word } })).toMatchObject({
      ok: false,
      error: { code: "INVALID_ARGUMENT", message: expect.stringContaining("control characters") },
    });
  });

  it("has a closed schema: no unknown parameter, no undeclared filter, no extra input", () => {
    const { action } = loadSigned(CATALOG);
    const validator = compileValidator(actionTool(action("echo_word")).inputSchema);
    expect(validator.check({ params: { word: "a" }, match: "x" })).toBe(true);
    expect(validator.check({ params: { word: "a", extra: "x" } })).toBe(false);
    expect(validator.check({ params: { word: "a" }, head: 3 })).toBe(false);
    expect(validator.check({ params: { word: "a" }, exec: ["/bin/sh"] })).toBe(false);
    expect(validator.check({ params: { word: "a", lines: 1000 } })).toBe(false);
  });

  it("shows the model this definition", () => {
    const { action } = loadSigned(CATALOG);
    const tool = actionTool(action("echo_word"));
    expect({
      name: tool.name,
      providerName: tool.providerName,
      risk: tool.risk,
      effects: tool.effects,
      category: tool.category,
      mutates: tool.mutates,
      schema: JSON.parse(JSON.stringify(tool.inputSchema)),
    }).toMatchInlineSnapshot(`
      {
        "category": "process",
        "effects": [
          "process",
        ],
        "mutates": false,
        "name": "action.echo_word",
        "providerName": "action_echo_word",
        "risk": "low",
        "schema": {
          "additionalProperties": false,
          "properties": {
            "match": {
              "description": "Keep only output lines matching this RE2 pattern (at most 200 characters).",
              "maxLength": 200,
              "minLength": 1,
              "type": "string",
            },
            "params": {
              "additionalProperties": false,
              "description": "The action's parameters; each becomes exactly one argument.",
              "properties": {
                "lines": {
                  "description": "Lines",
                  "maximum": 100,
                  "minimum": 1,
                  "type": "integer",
                },
                "loud": {
                  "description": "Add a marker",
                  "type": "boolean",
                },
                "word": {
                  "description": "The word.",
                  "maxLength": 256,
                  "type": "string",
                },
              },
              "required": [
                "word",
              ],
              "type": "object",
            },
          },
          "required": [
            "params",
          ],
          "type": "object",
        },
      }
    `);
  });
});
