import { createInterface } from "node:readline";
import type { PermissionAnswer, PermissionBroker, PermissionRequest } from "@pablo/kernel";
import type { Io } from "./output.js";

/**
 * A permission card in the terminal: the tool, a redacted argument preview, why it asks, and a
 * visible countdown to the automatic deny. Only used when stdin and stderr are terminals; without
 * one the CLI has no broker and requests fail closed.
 */
export function terminalBroker(io: Io): PermissionBroker {
  return {
    request(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
      io.stderr(card(request));
      return new Promise<PermissionAnswer>((resolve) => {
        const rl = createInterface({ input: io.stdin, terminal: false });
        const render = () => {
          const seconds = Math.max(0, Math.ceil((request.deadline - Date.now()) / 1000));
          io.stderr(`\r  [o] allow once  [s] allow for this session  [d] deny   (denied in ${seconds}s) > `);
        };
        render();
        const ticker = setInterval(render, 1000);
        const finish = (answer: PermissionAnswer) => {
          clearInterval(ticker);
          rl.close();
          io.stderr("\n");
          resolve(answer);
        };
        signal.addEventListener("abort", () => finish("deny"), { once: true });
        rl.on("line", (line) => {
          const key = line.trim().toLowerCase();
          if (key === "o" || key === "y" || key === "once") finish("allow-once");
          else if (key === "s" || key === "session") finish("allow-session");
          else if (key === "d" || key === "n" || key === "deny") finish("deny");
          else render();
        });
        rl.on("close", () => finish("deny"));
      });
    },
  };
}

function card(request: PermissionRequest): string {
  const who = request.requester ? ` (asked by ${request.requester})` : "";
  return [
    "",
    `┌ permission: ${request.providerName} (${request.tool}), ${request.risk} risk${who}`,
    `│ why: ${request.reason}`,
    `│ args: ${request.argsPreview.length > 400 ? `${request.argsPreview.slice(0, 400)}…` : request.argsPreview}`,
    "└",
    "",
  ].join("\n");
}
