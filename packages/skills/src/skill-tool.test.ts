import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type AuthorityLayer,
  createCatalog,
  createKernel,
  defineLayer,
  MemoryAuditSink,
  type OperatingMode,
  type PermissionProfile,
} from "@pablo/kernel";
import { describe, expect, it } from "vitest";
import { activateSkills } from "./activate.js";
import { discoverSkills } from "./discover.js";
import { createSkillTool, skillToolFor } from "./skill-tool.js";
import { skillText, useTempDir, writeSkill } from "./test-support/temp.js";
import type { Discovery } from "./types.js";

async function setup(bodies: Record<string, string> = { alpha: "Alpha steps.\n", beta: "Beta steps.\n" }) {
  const root = useTempDir();
  for (const [name, body] of Object.entries(bodies))
    writeSkill(root, name, skillText(name, `Use ${name} for ${name} work.`, body));
  const discovery = await discoverSkills([{ name: "team", dir: root }]);
  return { root, discovery };
}

function open(
  discovery: Discovery,
  options: {
    layers?: AuthorityLayer[];
    mode?: OperatingMode;
    permission?: PermissionProfile;
    maxContextBytes?: number;
  } = {},
) {
  const audit = new MemoryAuditSink();
  const tool = createSkillTool({
    skills: discovery.skills,
    maxContextBytes: options.maxContextBytes ?? 10_000,
  });
  const session = createKernel({ audit }).openSession({
    catalog: createCatalog([tool]),
    permission: options.permission ?? { mode: "ask" },
    ...(options.layers ? { layers: options.layers } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
  });
  return { session, audit, tool };
}

describe("the Skill tool, through the kernel's pipeline", () => {
  it("is a deferred, low-risk read tool that mutates nothing, and says that skills grant nothing", async () => {
    const { discovery } = await setup();
    const { tool } = open(discovery);
    expect({
      name: tool.name,
      providerName: tool.providerName,
      risk: tool.risk,
      effects: tool.effects,
      category: tool.category,
      mutates: tool.mutates,
      deferred: tool.deferred,
      summary: tool.summary,
    }).toEqual({
      name: "skill.activate",
      providerName: "Skill",
      risk: "low",
      effects: ["fs.read"],
      category: "read",
      mutates: false,
      deferred: true,
      summary: "Activate an Agent Skill by name: load its instructions (2 available)",
    });
    expect(tool.description).toMatchInlineSnapshot(`
      "Activate an Agent Skill: load its complete instructions into this task, then follow them.
      A skill is instructions only. Activating one grants no tool, path or permission; every call it suggests goes through the same policy as any other.
      Files beside a skill's SKILL.md (scripts, references, assets) are not loaded: read them with the file tools, under the normal read policy, from the \`dir\` the result gives.
      Activated instructions share a budget of 10000 bytes per task.

      Available skills (id: description):
      - team/alpha: Use alpha for alpha work.
      - team/beta: Use beta for beta work."
    `);
    expect(JSON.parse(JSON.stringify(tool.inputSchema))).toMatchInlineSnapshot(`
      {
        "additionalProperties": false,
        "properties": {
          "name": {
            "description": "The skill to activate: its id "root/name" from the list, or its bare name.",
            "maxLength": 200,
            "minLength": 1,
            "type": "string",
          },
        },
        "required": [
          "name",
        ],
        "type": "object",
      }
    `);
  });

  it("returns the instructions and records the activation and the content hash in the audit only", async () => {
    const { root, discovery } = await setup();
    const { session, audit } = open(discovery);
    const { result, decision } = await session.call({ tool: "Skill", args: { name: "team/alpha" } });
    expect(result).toEqual({
      ok: true,
      data: {
        skill: "team/alpha",
        name: "alpha",
        description: "Use alpha for alpha work.",
        dir: join(root, "alpha"),
        instructions: "Alpha steps.\n",
        note: "Instructions only: they grant no tool, path or permission. Files beside SKILL.md are read with the file tools, under the normal read policy.",
      },
    });
    expect(decision.verdict).toBe("allow");
    const hash = createHash("sha256")
      .update(readFileSync(join(root, "alpha", "SKILL.md")))
      .digest("hex");
    expect(audit.records[0]).toMatchObject({
      tool: "skill.activate",
      ok: true,
      notes: { skill: "team/alpha", contentHash: hash, instructionBytes: 13, activation: "new" },
    });
  });

  it("is refused by a layer over the skill dimension or over reading its file, before anything is read", async () => {
    const { root, discovery } = await setup();
    const bySkill = open(discovery, {
      layers: [defineLayer({ id: "deployment", skill: { deny: [{ id: "no-beta", match: "team/beta" }] } })],
    });
    expect((await bySkill.session.call({ tool: "Skill", args: { name: "beta" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { layer: "deployment", rule: "no-beta" } },
    });
    const byPath = open(discovery, {
      layers: [
        defineLayer({
          id: "ceiling",
          "fs.read": { allow: [{ id: "only-alpha", path: join(root, "alpha") }] },
        }),
      ],
    });
    expect((await byPath.session.call({ tool: "Skill", args: { name: "team/alpha" } })).result.ok).toBe(true);
    expect((await byPath.session.call({ tool: "Skill", args: { name: "team/beta" } })).result).toMatchObject({
      ok: false,
      error: { code: "TOOL_DENIED", details: { layer: "ceiling", rule: "default" } },
    });
  });

  it("answers an unknown name with NOT_FOUND and similar ids", async () => {
    const { discovery } = await setup();
    const { session } = open(discovery);
    const { result } = await session.call({ tool: "Skill", args: { name: "team/alphas" } });
    expect(result).toMatchObject({
      ok: false,
      error: { code: "NOT_FOUND", message: expect.stringContaining("team/alpha") },
    });
  });

  it("keeps a session's activated instructions within the bound, counting a repeat once", async () => {
    const { discovery } = await setup({ alpha: "a".repeat(300), beta: "b".repeat(300) });
    const { session, audit } = open(discovery, { maxContextBytes: 500 });
    expect((await session.call({ tool: "Skill", args: { name: "alpha" } })).result.ok).toBe(true);
    const repeat = await session.call({ tool: "Skill", args: { name: "alpha" } });
    expect(repeat.result).toMatchObject({ ok: true, data: { alreadyActive: true } });
    expect(audit.records[1]?.notes).toMatchObject({ activation: "repeat" });
    expect((await session.call({ tool: "Skill", args: { name: "beta" } })).result).toMatchObject({
      ok: false,
      error: { code: "LIMIT_EXCEEDED", details: { neededBytes: 300, remainingBytes: 200, limitBytes: 500 } },
    });
  });

  it("counts skills the deployment activated before the session", async () => {
    const { discovery } = await setup({ alpha: "a".repeat(300), beta: "b".repeat(300) });
    const { context } = await activateSkills(["team/alpha"], discovery);
    const tool = createSkillTool({ skills: discovery.skills, maxContextBytes: 500, active: context });
    const session = createKernel().openSession({ catalog: createCatalog([tool]) });
    expect((await session.call({ tool: "Skill", args: { name: "beta" } })).result).toMatchObject({
      ok: false,
      error: { code: "LIMIT_EXCEEDED" },
    });
  });

  it("runs in Plan and Goal and under the read-only profile, without a permission prompt", async () => {
    const { discovery } = await setup();
    for (const mode of ["plan", "goal"] as const) {
      const { session, audit } = open(discovery, { mode, permission: { mode: "read-only" } });
      expect((await session.call({ tool: "Skill", args: { name: "alpha" } })).result.ok, mode).toBe(true);
      expect(audit.records[0]?.prompted).toBe(false);
    }
  });

  it("fails cleanly when the skill changed into something that no longer loads", async () => {
    const { root, discovery } = await setup();
    writeSkill(root, "alpha", "no frontmatter any more\n");
    const { session } = open(discovery);
    expect((await session.call({ tool: "Skill", args: { name: "alpha" } })).result).toMatchObject({
      ok: false,
      error: {
        code: "SKILL_INVALID",
        details: { skill: "team/alpha", problems: [expect.stringContaining("NO_FRONTMATTER")] },
      },
    });
  });
});

describe("registration", () => {
  it("offers the tool only when roots are configured, it is enabled and a skill was found", async () => {
    const { root, discovery } = await setup();
    const roots = [{ name: "team", dir: root }];
    expect(skillToolFor([], discovery)).toBeUndefined();
    expect(skillToolFor(roots, { skills: [], diagnostics: [] })).toBeUndefined();
    expect(skillToolFor(roots, discovery, { enabled: false })).toBeUndefined();
    expect(skillToolFor(roots, discovery)?.name).toBe("skill.activate");
  });
});

describe("allowed-tools as a restriction on the running session", () => {
  it("narrows the session to the activated skill's allowed-tools only when the deployment asks for it", async () => {
    const root = useTempDir();
    writeSkill(
      root,
      "reviewer",
      "---\nname: reviewer\ndescription: Reviews.\nallowed-tools: fs.read\n---\nRead, never write.\n",
    );
    const discovery = await discoverSkills([{ name: "team", dir: root }]);
    const other = (name: string) => ({
      ...createSkillTool({ skills: [] }),
      name,
      providerName: name.replace(".", "_"),
    });
    for (const restrict of [false, true]) {
      const tool = createSkillTool({
        skills: discovery.skills,
        ...(restrict ? { restrictToAllowedTools: { alsoAllow: [] } } : {}),
      });
      const session = createKernel().openSession({
        catalog: createCatalog([tool, other("fs.read"), other("fs.write")]),
        permission: { mode: "auto" },
      });
      expect(session.visibleTools()).toHaveLength(3);
      const { result } = await session.call({ tool: "Skill", args: { name: "reviewer" } });
      expect(result.ok).toBe(true);
      const visible = session
        .visibleTools()
        .map((t) => t.name)
        .sort();
      expect(visible, `restrict=${restrict}`).toEqual(
        restrict ? ["fs.read", "skill.activate"] : ["fs.read", "fs.write", "skill.activate"],
      );
    }
  });
});
