import { describe, expect, it } from "vitest";
import {
  type Access,
  isDeferred,
  modeGate,
  type PermissionMode,
  permissionNeed,
  type Risk,
  type ToolCategory,
} from "./index.js";

const need = (
  mode: PermissionMode,
  risk: Risk,
  category: ToolCategory,
  accesses: Access[] = [],
  effects: string[] = [],
) => permissionNeed({ mode }, { risk, category, effects, accesses }).need;

describe("permission modes (seed 001 section 6)", () => {
  it("follows the table: writes confirm only under ask; processes and plugins confirm except under auto", () => {
    const rows: Array<[Risk, ToolCategory, Record<"ask" | "accept-edits" | "auto", string>]> = [
      ["low", "read", { ask: "none", "accept-edits": "none", auto: "none" }],
      ["high", "write", { ask: "ask", "accept-edits": "none", auto: "none" }],
      ["high", "process", { ask: "ask", "accept-edits": "ask", auto: "none" }],
      ["medium", "plugin", { ask: "ask", "accept-edits": "ask", auto: "none" }],
      ["low", "plugin", { ask: "ask", "accept-edits": "ask", auto: "none" }],
      ["medium", "external", { ask: "ask", "accept-edits": "ask", auto: "none" }],
    ];
    for (const [risk, category, expected] of rows) {
      for (const mode of ["ask", "accept-edits", "auto"] as const) {
        expect(need(mode, risk, category), `${risk} ${category} ${mode}`).toBe(expected[mode]);
      }
    }
  });

  it("confirms an explicit outside path even for a low-risk read, except under auto", () => {
    const external: Access[] = [{ dimension: "fs.read", path: "/etc/hosts", root: "external" }];
    expect(need("ask", "low", "read", external)).toBe("ask");
    expect(need("accept-edits", "low", "read", external)).toBe("ask");
    expect(need("auto", "low", "read", external)).toBe("none");
  });

  it("never prompts for writes that land only in the scratch root", () => {
    const scratch: Access[] = [{ dimension: "fs.write", path: "/data/scratch/s1/a", root: "scratch" }];
    const mixed: Access[] = [...scratch, { dimension: "fs.write", path: "/w/a", root: "workspace" }];
    expect(need("ask", "high", "write", scratch)).toBe("none");
    expect(need("ask", "high", "write", mixed)).toBe("ask");
  });

  it("read-only denies every effect but reads unless granted", () => {
    expect(need("read-only", "low", "read", [], ["fs.read"])).toBe("none");
    expect(need("read-only", "high", "write", [], ["fs.write"])).toBe("deny");
    expect(need("read-only", "medium", "external", [], ["net"])).toBe("deny");
    expect(
      permissionNeed(
        { mode: "read-only", grants: ["net"] },
        { risk: "medium", category: "external", effects: ["net"], accesses: [] },
      ).need,
    ).toBe("none");
  });
});

describe("operating-mode matrix (seed 001 section 10)", () => {
  it("allows inspection everywhere and hard-denies writes, plugins and unknown kinds in Plan and Goal", () => {
    const table: Array<[ToolCategory, string, string, string]> = [
      ["read", "continue", "continue", "continue"],
      ["preview", "continue", "continue", "continue"],
      ["control", "continue", "continue", "continue"],
      ["process", "continue", "continue", "continue"],
      ["write", "continue", "DISABLED_IN_MODE", "DISABLED_IN_MODE"],
      ["plugin", "continue", "PLUGIN_DISABLED_IN_PLAN", "PLUGIN_DISABLED_IN_PLAN"],
      ["external", "continue", "DISABLED_IN_MODE", "DISABLED_IN_MODE"],
      ["agent-control", "continue", "DISABLED_IN_MODE", "DISABLED_IN_MODE"],
      ["plan-submit", "DISABLED_IN_MODE", "continue", "DISABLED_IN_MODE"],
      ["goal-submit", "DISABLED_IN_MODE", "DISABLED_IN_MODE", "continue"],
      ["something-new" as ToolCategory, "DISABLED_IN_MODE", "DISABLED_IN_MODE", "DISABLED_IN_MODE"],
    ];
    for (const [category, agent, plan, goal] of table) {
      const actual = (["agent", "plan", "goal"] as const).map((mode) => {
        const v = modeGate(mode, category);
        return v.verdict === "continue" ? "continue" : v.code;
      });
      expect(actual, category).toEqual([agent, plan, goal]);
    }
  });
});

describe("deferral by mode", () => {
  it("defers agent-mode tools only in Agent mode (seed 001 2.1's Glob and Grep)", () => {
    expect(
      ["agent", "plan", "goal"].map((m) => isDeferred({ deferred: "agent-mode" }, m as "agent")),
    ).toEqual([true, false, false]);
    expect(["agent", "plan", "goal"].map((m) => isDeferred({ deferred: true }, m as "agent"))).toEqual([
      true,
      true,
      true,
    ]);
    expect(isDeferred({}, "agent")).toBe(false);
  });
});
