import { existsSync } from "node:fs";
import {
  type Access,
  type AnyToolDefinition,
  ErrorCode,
  fail,
  type Risk,
  type ToolFailure,
} from "@pablo/kernel";
import Type, { type TObject, type TSchema } from "typebox";
import type { ParamValue } from "./arg-template.js";
import { executeProgramAction } from "./execute-action.js";
import { type FilterInput, filterProblem, filterProperties } from "./filters.js";
import type { LoadedAction } from "./loaded-action.js";
import { paramsSchema, paramValueProblem } from "./params.js";
import { executeBuiltinAction } from "./run-builtin.js";

/** The arguments of an action tool: `params`, and the declared filters beside it at the top level. */
interface ActionArgs extends FilterInput {
  readonly params?: Readonly<Record<string, unknown>>;
}

/**
 * The tool for a loaded action: `action.NAME` (provider name `action_NAME`), its risk from the
 * signed catalog, effects and category by kind (a program is `process`; a builtin declares its
 * own), and a closed input schema: `params` plus only the filters the action declares, so a caller
 * can add no capability.
 */
export function actionTool(action: LoadedAction): AnyToolDefinition {
  const inputSchema = actionInputSchema(action);
  const risk: Risk = action.spec.risk === "read" ? "low" : action.spec.risk;
  const handler = action.builtin?.handler;
  return {
    name: `action.${action.name}`,
    providerName: `action_${action.name}`,
    description: describe(action),
    summary: firstLine(action.spec.description),
    risk,
    effects: handler ? handler.effects : ["process"],
    category: handler ? handler.category : "process",
    mutates: action.spec.risk !== "read" && handler === undefined,
    inputSchema,
    accesses(args: unknown) {
      const problem = callProblem(action, args as ActionArgs);
      if (problem) return problem;
      return declaredAccesses(action, args as ActionArgs);
    },
    async execute(args: unknown, ctx) {
      const input = args as ActionArgs;
      const problem = callProblem(action, input);
      if (problem) return problem;
      const { params = {}, ...filters } = input;
      const context = { signal: ctx.signal, deadline: ctx.deadline };
      if (action.builtin) return executeBuiltinAction(action, params, filters, context);
      return executeProgramAction(action, { params: params as Record<string, ParamValue>, filters }, context);
    },
  };
}

/** The closed input schema: `params` (required when a parameter is) and the declared filters. */
export function actionInputSchema(action: LoadedAction): TObject {
  const params: TObject = action.builtin
    ? action.builtin.handler.paramsSchema
    : paramsSchema(action.spec.params ?? {});
  const required = Array.isArray(params.required) && params.required.length > 0;
  const properties: Record<string, TSchema> = {
    params: required ? params : Type.Optional(params),
    ...filterProperties(action.filters),
  };
  return Type.Object(properties, { additionalProperties: false });
}

/** What the schema cannot check: filter exclusivity and patterns, and the parameter value rules. */
function callProblem(action: LoadedAction, args: ActionArgs): ToolFailure | undefined {
  const { params = {}, ...filters } = args;
  const filter = filterProblem(filters, action.filters);
  if (filter) return fail(ErrorCode.INVALID_ARGUMENT, filter);
  if (action.builtin) return undefined;
  const value = paramValueProblem(action.spec.params ?? {}, params as Record<string, ParamValue>);
  return value ? fail(ErrorCode.INVALID_ARGUMENT, value) : undefined;
}

function declaredAccesses(action: LoadedAction, args: ActionArgs): readonly Access[] | ToolFailure {
  if (action.builtin) return action.builtin.handler.accesses(action.builtin.config, args.params ?? {});
  if (action.script) return [{ dimension: "executable", path: action.script.interpreter }];
  return action.steps.map((step) => {
    const primary = typeof step.exec[0] === "string" ? step.exec[0] : "";
    const path = [primary, ...step.fallbacks].find((p) => existsSync(p)) ?? primary;
    return { dimension: "executable" as const, path };
  });
}

function describe(action: LoadedAction): string {
  const parts = [action.spec.description.trim()];
  if (action.filters.length > 0) {
    parts.push(
      `Output filters (top-level inputs, applied to each step's redacted stdout): ${action.filters.join(", ")}.`,
    );
  }
  return parts.join("\n\n");
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
