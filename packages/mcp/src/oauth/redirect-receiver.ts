import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpOAuthCode, McpOAuthError } from "./codes.js";

/** The path of the loopback redirect URI. */
const CALLBACK_PATH = "/callback";

export interface RedirectReceiver {
  /** `http://127.0.0.1:PORT/callback`, the redirect URI of this login. */
  readonly redirectUrl: string;
  /**
   * Arms the receiver for one authorization: resolves with the code of the first redirect that
   * carries `state`; rejects when a redirect carries another state or an error, after
   * `timeoutMs`, or when `signal` aborts. Call it before opening the authorization page.
   */
  expect(state: string, timeoutMs: number, signal: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

/**
 * Listens on 127.0.0.1 at a random port for the authorization server's redirect (RFC 8252
 * loopback redirect). Only `GET /callback` is answered; the page it shows says nothing secret.
 */
export async function startRedirectReceiver(): Promise<RedirectReceiver> {
  let pending:
    | { state: string; resolve: (code: string) => void; reject: (error: McpOAuthError) => void }
    | undefined;
  const server = createServer((req, res) => {
    const outcome = readRedirect(req, pending?.state);
    answer(res, outcome.status, outcome.page);
    if (!pending || outcome.kind === "ignored") return;
    const current = pending;
    pending = undefined;
    if (outcome.kind === "code") current.resolve(outcome.code);
    else current.reject(outcome.error);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    redirectUrl: `http://127.0.0.1:${port}${CALLBACK_PATH}`,
    expect(state, timeoutMs, signal) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          finish();
          reject(
            new McpOAuthError(
              McpOAuthCode.LOGIN_TIMEOUT,
              `no authorization came back within ${timeoutMs} ms (login_timeout_ms)`,
            ),
          );
        }, timeoutMs);
        const onAbort = () => {
          finish();
          reject(new McpOAuthError(McpOAuthCode.CANCELLED, "the login was cancelled"));
        };
        const finish = () => {
          clearTimeout(timer);
          signal.removeEventListener("abort", onAbort);
          pending = undefined;
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener("abort", onAbort, { once: true });
        pending = {
          state,
          resolve: (code) => {
            finish();
            resolve(code);
          },
          reject: (error) => {
            finish();
            reject(error);
          },
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Redirect =
  | { kind: "code"; code: string; status: number; page: string }
  | { kind: "failed"; error: McpOAuthError; status: number; page: string }
  | { kind: "ignored"; status: number; page: string };

function readRedirect(req: IncomingMessage, expected: string | undefined): Redirect {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  if (req.method !== "GET" || url.pathname !== CALLBACK_PATH) {
    return { kind: "ignored", status: 404, page: "Not found." };
  }
  if (expected === undefined) return { kind: "ignored", status: 400, page: "No Pablo login is waiting." };
  const state = url.searchParams.get("state") ?? "";
  if (!sameState(state, expected)) {
    const error = new McpOAuthError(
      McpOAuthCode.STATE_MISMATCH,
      "the redirect carried a state other than the one sent; the login was abandoned",
    );
    return {
      kind: "failed",
      error,
      status: 400,
      page: "This authorization does not belong to the waiting login.",
    };
  }
  const denied = url.searchParams.get("error");
  if (denied !== null) {
    const description = printable(url.searchParams.get("error_description") ?? "");
    const error = new McpOAuthError(
      McpOAuthCode.AUTHORIZATION_DENIED,
      `the authorization server answered ${printable(denied)}${description ? `: ${description}` : ""}`,
    );
    return {
      kind: "failed",
      error,
      status: 200,
      page: "Authorization was not granted. You can close this window.",
    };
  }
  const code = url.searchParams.get("code");
  if (!code) {
    const error = new McpOAuthError(McpOAuthCode.FAILED, "the redirect carried neither a code nor an error");
    return { kind: "failed", error, status: 400, page: "The redirect carried no authorization code." };
  }
  return { kind: "code", code, status: 200, page: "Pablo is authorized. You can close this window." };
}

function sameState(received: string, expected: string): boolean {
  const a = Buffer.from(received);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Server-supplied text, bounded and without control characters, for an error message. */
function printable(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, "?").slice(0, 200);
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-store",
    connection: "close",
  });
  res.end(`${text}\n`);
}
