import { timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express, { type NextFunction, type Request, type Response } from "express";
import { A2aServeCode, A2aServeError } from "../codes.js";
import { PabloExecutor, type ServedAnswer, type ServedTask } from "./executor.js";

export type { ServedAnswer, ServedTask } from "./executor.js";

export interface ServeA2aOptions {
  /** The card's name and description: derived from the deployment, never secrets or local paths. */
  readonly name: string;
  readonly description: string;
  readonly version: string;
  /** 0 picks a free port. The server listens on 127.0.0.1 only. */
  readonly port: number;
  /** When set, every RPC must carry `Authorization: Bearer <bearer>`; the card stays public. */
  readonly bearer?: string;
  /**
   * Runs one incoming task (for `pablo a2a serve`: one `pablo run` loop under the deployment's
   * authority). Contract: honours `task.signal` and never throws for anything the task did.
   */
  readonly run: (task: ServedTask) => Promise<ServedAnswer>;
}

export interface ServedA2a {
  /** The JSON-RPC endpoint, `http://127.0.0.1:PORT/a2a/v1`. */
  readonly url: string;
  /** The Agent Card, `http://127.0.0.1:PORT/.well-known/agent-card.json`. */
  readonly cardUrl: string;
  readonly card: AgentCard;
  /** Cancels running tasks and stops listening. Contract: never throws. */
  close(): Promise<void>;
  readonly closed: Promise<void>;
}

export const RPC_PATH = "/a2a/v1";
export const CARD_PATH = "/.well-known/agent-card.json";

/**
 * An A2A 1.0 server on 127.0.0.1 built with the SDK's handler and express helpers: JSON-RPC at
 * {@link RPC_PATH} (SSE streaming on), the card at {@link CARD_PATH}. Each task streams its
 * states and exactly one artifact; CancelTask aborts the task's signal.
 */
export async function serveA2a(options: ServeA2aOptions): Promise<ServedA2a> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
    throw new A2aServeError(A2aServeCode.INVALID_OPTIONS, `port ${options.port} is not a TCP port`);
  if (options.bearer !== undefined && options.bearer.length < 16)
    throw new A2aServeError(A2aServeCode.INVALID_OPTIONS, "the serve bearer must be at least 16 characters");
  const app = express();
  const server = createServer(app);
  await listen(server, options.port);
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${RPC_PATH}`;
  const card = servedCard(options, url);
  const executor = new PabloExecutor(options.run);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(CARD_PATH, agentCardHandler({ agentCardProvider: handler }));
  app.use(
    RPC_PATH,
    requireBearer(options.bearer),
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  server.on("close", () => resolveClosed());
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      executor.cancelAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    })();
    return closing;
  };
  return { url, cardUrl: `http://127.0.0.1:${port}${CARD_PATH}`, card, close, closed };
}

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new A2aServeError(A2aServeCode.LISTEN_FAILED, `cannot listen on 127.0.0.1:${port}: ${error.message}`),
      ),
    );
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

function servedCard(options: ServeA2aOptions, url: string): AgentCard {
  return {
    name: options.name,
    description: options.description,
    version: options.version,
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes:
      options.bearer !== undefined
        ? {
            bearer: {
              scheme: {
                $case: "httpAuthSecurityScheme",
                value: {
                  description: "A token from the serving deployment's credentials.",
                  scheme: "Bearer",
                  bearerFormat: "",
                },
              },
            },
          }
        : {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [
      {
        id: "task",
        name: "task",
        description: "Runs one task under the serving deployment's policy.",
        tags: [],
        examples: [],
        inputModes: ["text/plain"],
        outputModes: ["text/plain"],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** Bearer check on the RPC path only; compared in constant time. */
function requireBearer(token: string | undefined) {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return (req: Request, res: Response, next: NextFunction) => {
    if (!expected) return next();
    const given = Buffer.from(req.headers.authorization ?? "");
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    res
      .status(401)
      .set("www-authenticate", "Bearer")
      .json({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32001, message: "a valid bearer token is required" },
      });
  };
}
