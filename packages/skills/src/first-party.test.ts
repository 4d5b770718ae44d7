import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { activateSkills } from "./activate.js";
import { checkSkills } from "./check.js";
import { discoverSkills } from "./discover.js";
import { REPO_ROOT } from "./test-support/temp.js";

const SKILLS = join(REPO_ROOT, "skills");

describe("first-party skills in skills/", () => {
  it("are spec-valid with no warning, as `pablo skills check skills` reports them", async () => {
    const report = await checkSkills(SKILLS);
    expect(report.diagnostics).toEqual([]);
    expect(report.results.map((r) => [r.skill?.name, r.valid, r.diagnostics])).toEqual([
      ["evidence-review", true, []],
      ["pablo-deployment-policy", true, []],
      ["pablo-plugin-tool", true, []],
      ["pablo-skill-authoring", true, []],
    ]);
    expect(report.valid).toBe(true);
  });

  it("load from a root and activate together within the default context bound", async () => {
    const discovery = await discoverSkills([{ name: "pablo", dir: SKILLS }]);
    expect(discovery.diagnostics).toEqual([]);
    const activation = await activateSkills(
      discovery.skills.map((s) => s.id),
      discovery,
    );
    expect(activation.diagnostics).toEqual([]);
    expect(activation.context).toHaveLength(4);
    const review = activation.context.find((s) => s.name === "evidence-review");
    expect(review?.description).toBe(
      "Review cited evidence and retain exact source references. Use when a task asks to verify claims, answer from files, documents or tool results, or produce findings where every statement must say exactly where it came from.",
    );
    expect(review?.instructions).toContain(
      "Use only the evidence provided by the task and configured tools.",
    );
  });
});
