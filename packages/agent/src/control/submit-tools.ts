import { createHash } from "node:crypto";
import { join } from "node:path";
import { defineTool, ErrorCode, fail, ok, type ToolContext, type ToolDefinition } from "@pablo/kernel";
import Type from "typebox";
import { type ArtifactKind, artifactName, artifactRelativePath, preserveArtifact } from "./artifact-file.js";
import type { AgentControlHub } from "./hub.js";
import { ControlToolName } from "./names.js";
import { aloneInBatch, withRuntime } from "./with-runtime.js";

const MAX_PREVIEW_CHARS = 1500;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const SubmitInput = Type.Object(
  {
    markdown: Type.String({
      minLength: 1,
      description: "The complete document as Markdown. It is saved byte for byte, exactly as given.",
    }),
  },
  { additionalProperties: false },
);

/**
 * SubmitPlan / SubmitGoal: only in their own mode and alone in their batch. The Markdown is saved
 * byte for byte in a new file under `.pablo/plan/` or `.pablo/goal/` (exclusive create, no
 * symlinks), then one approval is requested through the permission broker. The saved file is
 * declared as an `fs.write` access, so write-root policy governs where artifacts may go.
 */
export function submitTool(hub: AgentControlHub, workspace: string, kind: ArtifactKind): ToolDefinition {
  const providerName = kind === "plan" ? "SubmitPlan" : "SubmitGoal";
  return defineTool({
    name: kind === "plan" ? ControlToolName.SUBMIT_PLAN : ControlToolName.SUBMIT_GOAL,
    providerName,
    summary: kind === "plan" ? "Submit the plan for approval" : "Submit the goal for approval",
    description:
      kind === "plan"
        ? "Submit your plan as Markdown. It is saved under .pablo/plan/ and the user is asked to approve it; once approved the session returns to Agent mode to carry it out. Must be the only tool call in its response."
        : "Submit the goal and its acceptance criteria as Markdown. It is saved under .pablo/goal/ and the user is asked to approve it; once approved the session returns to Agent mode to pursue it. Must be the only tool call in its response.",
    inputSchema: SubmitInput,
    risk: "low",
    effects: ["artifact"],
    category: kind === "plan" ? "plan-submit" : "goal-submit",
    mutates: true,
    accesses: (_args, ctx) => [
      {
        dimension: "fs.write",
        path: join(workspace, ".pablo", kind, plannedName(ctx, kind)),
        root: "workspace",
      },
    ],
    execute: async (args, ctx) =>
      withRuntime(hub, ctx, providerName, async (runtime) => {
        const alone = aloneInBatch(runtime, ctx, providerName);
        if (alone) return alone;
        if (LONE_SURROGATE.test(args.markdown)) {
          return fail(
            ErrorCode.INVALID_ARGUMENT,
            "markdown contains unpaired surrogates and cannot be saved as UTF-8 exactly",
          );
        }
        if (args.markdown.trim() === "") return fail(ErrorCode.INVALID_ARGUMENT, `the ${kind} is empty`);
        const name = plannedName(ctx, kind);
        const bytes = new TextEncoder().encode(args.markdown);
        const refused = preserveArtifact(workspace, kind, name, bytes);
        if (refused) return refused;
        const path = artifactRelativePath(kind, name);
        const sha256 = createHash("sha256").update(bytes).digest("hex");
        const answer = await runtime.approve(
          { kind, path, bytes: bytes.length, preview: args.markdown.slice(0, MAX_PREVIEW_CHARS) },
          ctx,
        );
        const approved = answer === "approved";
        runtime.submitted({ kind, path, bytes: bytes.length, sha256, approved, answer });
        return ok(
          {
            path,
            bytes: bytes.length,
            sha256,
            approved,
            answer,
            next: approved
              ? `The ${kind} was approved and the session is back in Agent mode: carry it out.`
              : `The ${kind} was saved but not approved (${answer}). Revise it and submit again, or stop and explain.`,
          },
          { committed: true },
        );
      }),
  });
}

/**
 * The file name is chosen while the call is planned, so that the access policy decides on is the
 * file execution creates. Kept per call ID in the session's tool state.
 */
function plannedName(ctx: ToolContext, kind: ArtifactKind): string {
  const names = ctx.state("agent.artifact-names", () => new Map<string, string>());
  let name = names.get(ctx.callId);
  if (!name) {
    name = artifactName(kind);
    names.set(ctx.callId, name);
  }
  return name;
}
