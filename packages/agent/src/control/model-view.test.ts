import { createCatalog } from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { resolveSubagents } from "../children/subagents.js";
import { createControlTools } from "./agent-provider.js";
import { AgentControlHub } from "./hub.js";

describe("what the model sees of the control tools", () => {
  it("names, categories, risks, effects and input schemas", () => {
    const subagents = resolveSubagents([
      { name: "reader", description: "Reads and reports", tools: ["Read", "Grep"] },
    ]).items;
    const catalog = createCatalog(
      createControlTools(new AgentControlHub(), { workspace: "/ws", subagents, children: true }),
    );
    const view = catalog.entries.map((e) => ({
      name: e.name,
      model: e.providerName,
      category: e.definition.category,
      risk: e.definition.risk,
      effects: e.definition.effects.join(","),
      schema: JSON.stringify(e.inputJsonSchema),
    }));
    expect(view).toMatchInlineSnapshot(`
      [
        {
          "category": "control",
          "effects": "",
          "model": "new_context",
          "name": "agent.new-context",
          "risk": "low",
          "schema": "{"type":"object","properties":{},"additionalProperties":false}",
        },
        {
          "category": "agent-control",
          "effects": "",
          "model": "EnterPlanMode",
          "name": "agent.enter-plan-mode",
          "risk": "low",
          "schema": "{"type":"object","properties":{},"additionalProperties":false}",
        },
        {
          "category": "agent-control",
          "effects": "",
          "model": "EnterGoalMode",
          "name": "agent.enter-goal-mode",
          "risk": "low",
          "schema": "{"type":"object","properties":{},"additionalProperties":false}",
        },
        {
          "category": "plan-submit",
          "effects": "artifact",
          "model": "SubmitPlan",
          "name": "agent.submit-plan",
          "risk": "low",
          "schema": "{"type":"object","required":["markdown"],"properties":{"markdown":{"type":"string","minLength":1,"description":"The complete document as Markdown. It is saved byte for byte, exactly as given."}},"additionalProperties":false}",
        },
        {
          "category": "goal-submit",
          "effects": "artifact",
          "model": "SubmitGoal",
          "name": "agent.submit-goal",
          "risk": "low",
          "schema": "{"type":"object","required":["markdown"],"properties":{"markdown":{"type":"string","minLength":1,"description":"The complete document as Markdown. It is saved byte for byte, exactly as given."}},"additionalProperties":false}",
        },
        {
          "category": "control",
          "effects": "ui",
          "model": "asktool",
          "name": "agent.ask",
          "risk": "low",
          "schema": "{"type":"object","required":["questions"],"properties":{"questions":{"type":"array","items":{"type":"object","required":["question"],"properties":{"question":{"type":"string","minLength":1,"maxLength":2000,"description":"The question, in one or two sentences."},"options":{"type":"array","items":{"type":"string","minLength":1,"maxLength":200},"maxItems":10,"description":"Suggested answers the user can pick from; they may still answer freely."}},"additionalProperties":false},"minItems":1,"maxItems":10,"description":"The questions to ask, in order."}},"additionalProperties":false}",
        },
        {
          "category": "agent-control",
          "effects": "child",
          "model": "Task",
          "name": "agent.task",
          "risk": "low",
          "schema": "{"type":"object","required":["subagent","prompt"],"properties":{"subagent":{"anyOf":[{"type":"string","const":"reader"}],"description":"Which delegate runs the sub-task."},"prompt":{"type":"string","minLength":1,"maxLength":100000,"description":"The complete sub-task, with every detail the delegate needs."}},"additionalProperties":false}",
        },
        {
          "category": "external",
          "effects": "child",
          "model": "child_start",
          "name": "agent.child.start",
          "risk": "low",
          "schema": "{"type":"object","required":["task"],"properties":{"task":{"type":"string","minLength":1,"maxLength":100000,"description":"The complete sub-task."}},"additionalProperties":false}",
        },
        {
          "category": "external",
          "effects": "child",
          "model": "child_wait",
          "name": "agent.child.wait",
          "risk": "low",
          "schema": "{"type":"object","required":["child"],"properties":{"child":{"type":"string","pattern":"^c[0-9]{1,6}$","description":"The child's ID, as child_start returned it."},"timeout_ms":{"type":"integer","minimum":0,"maximum":3600000,"description":"Longest wait in milliseconds (default 600000; 0 only reports)."}},"additionalProperties":false}",
        },
        {
          "category": "external",
          "effects": "child",
          "model": "child_handoff",
          "name": "agent.child.handoff",
          "risk": "low",
          "schema": "{"type":"object","required":["child"],"properties":{"child":{"type":"string","pattern":"^[a-z][0-9]{1,6}$","description":"The child's ID as child_start returned it, or a retained result's ID (r1) as a remote agent's receipt named it."},"artifact":{"type":"string","minLength":1,"description":"A file the child read or wrote, as child_wait listed it."}},"additionalProperties":false}",
        },
      ]
    `);
  });
});
