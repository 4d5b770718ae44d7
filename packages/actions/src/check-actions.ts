import { existsSync } from "node:fs";
import type { LoadedAction } from "./loaded-action.js";

/** Whether an action can run on this host, and what is missing when it cannot. */
export interface ActionSupport {
  readonly action: string;
  readonly supported: boolean;
  /** One line per missing piece: an executable and its fallbacks, an interpreter, a server. */
  readonly unsupported: readonly string[];
  /** Load-time warnings carried along (`allow_interpreter`). */
  readonly warnings: readonly string[];
}

/**
 * Reports per action what this host lacks. A catalog that loads proves only that its actions
 * are signed and well formed; this looks for each step's executable or a fallback, a script's
 * interpreter, and asks each builtin whether its server answers and its credentials are usable.
 */
export async function checkActions(actions: readonly LoadedAction[]): Promise<ActionSupport[]> {
  return Promise.all(actions.map(checkAction));
}

async function checkAction(action: LoadedAction): Promise<ActionSupport> {
  const unsupported: string[] = [];
  for (const step of action.steps) {
    const primary = typeof step.exec[0] === "string" ? step.exec[0] : "";
    const candidates = [primary, ...step.fallbacks];
    if (!candidates.some((path) => existsSync(path))) {
      unsupported.push(`step ${step.name}: missing executable ${candidates.join(", ")}`);
    }
  }
  if (action.script && !existsSync(action.script.interpreter)) {
    unsupported.push(`script: missing interpreter ${action.script.interpreter}`);
  }
  if (action.builtin) {
    const problem = await action.builtin.handler.check(action.builtin.config);
    if (problem) unsupported.push(`builtin ${action.builtin.handler.name}: ${problem}`);
  }
  return { action: action.name, supported: unsupported.length === 0, unsupported, warnings: action.warnings };
}
