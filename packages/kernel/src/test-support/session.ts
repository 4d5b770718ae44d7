import type { PermissionAnswer, PermissionBroker, PermissionRequest, ToolDefinition } from "../index.js";
import { echoTool } from "./tools.js";

/** A broker with one scripted answer, or none ever (`"never"`: it waits until its signal aborts). */
export class ScriptedBroker implements PermissionBroker {
  readonly requests: PermissionRequest[] = [];
  constructor(private readonly answer: PermissionAnswer | "never") {}
  request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
    this.requests.push(request);
    if (this.answer !== "never") return Promise.resolve(this.answer);
    return new Promise((_, reject) =>
      signal.addEventListener("abort", () => reject(signal.reason), { once: true }),
    );
  }
}

/** Resolves once a tool body has started, so a test aborts a running call rather than racing a timer. */
export interface Started {
  readonly promise: Promise<void>;
  mark(): void;
}

export function startedSignal(): Started {
  let mark!: () => void;
  const promise = new Promise<void>((resolve) => {
    mark = resolve;
  });
  return { promise, mark };
}

/** A medium-risk plugin tool that runs a process. */
export const pluginTool = (): ToolDefinition =>
  echoTool({ name: "plugin.acme.lint", category: "plugin", risk: "medium", effects: ["process"] });
