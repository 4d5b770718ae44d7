import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { contentTypeOf } from "./content-types.js";
import { INDEX_FILE, type WorkspaceFiles } from "./workspace-files.js";

export interface WorkspaceServerOptions {
  readonly files: WorkspaceFiles;
  /** Largest file served; bigger ones get 413. */
  readonly maxFileBytes: number;
  /** Decides each file about to be served (the call's authority); false sends 403. Contract: must not throw. */
  readonly allows: (canonicalPath: string) => boolean;
}

/** A loopback HTTP server of one workspace, alive for one preview. */
export interface WorkspaceServer {
  /** `http://127.0.0.1:<port>`: the only origin the browser may load. */
  readonly origin: string;
  readonly port: number;
  /** Requests for anything but this origin that reached the server as the browser's proxy, refused. */
  readonly foreignRequests: number;
  /** Files the call's authority refused. */
  readonly deniedFiles: number;
  close(): Promise<void>;
}

/**
 * Serves the workspace on 127.0.0.1 on an ephemeral port. The server is also the browser's proxy:
 * a request for any other origin arrives here in absolute form (or as CONNECT, or as an upgrade)
 * and is refused, so a request the page interception missed still never leaves the machine. Only
 * GET and HEAD of origin-form targets with this exact Host are answered (no DNS rebinding).
 */
export async function startWorkspaceServer(options: WorkspaceServerOptions): Promise<WorkspaceServer> {
  let foreign = 0;
  let denied = 0;
  let host = "";
  const server = createServer((req, res) => {
    if (!req.url?.startsWith("/") || req.headers.host !== host) {
      foreign += 1;
      return send(res, 403, "only the workspace origin is served");
    }
    answer(req, res, options).then(
      (outcome) => {
        if (outcome === "denied") denied += 1;
      },
      () => send(res, 500, "the file could not be served"),
    );
  });
  const refuseSocket = (socket: Socket): void => {
    foreign += 1;
    socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    socket.destroySoon();
  };
  server.on("connect", (_req, socket: Socket) => refuseSocket(socket));
  server.on("upgrade", (_req, socket: Socket) => refuseSocket(socket));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the server has no TCP address");
  host = `127.0.0.1:${address.port}`;
  return {
    origin: `http://${host}`,
    port: address.port,
    get foreignRequests() {
      return foreign;
    },
    get deniedFiles() {
      return denied;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type Outcome = "served" | "refused" | "denied";

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  options: WorkspaceServerOptions,
): Promise<Outcome> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    send(res, 405, "only GET and HEAD are served");
    return "refused";
  }
  const target = requestPath(req.url ?? "/");
  if (target === undefined) {
    send(res, 400, "the path is malformed or leaves the workspace");
    return "refused";
  }
  const file = await options.files.read(target.components, options.maxFileBytes);
  if (!file.ok) {
    send(res, file.status, file.message);
    return "refused";
  }
  if (!options.allows(file.path)) {
    send(res, 403, "the call's authority does not allow reading this file");
    return "denied";
  }
  if (file.name === INDEX_FILE && !target.directory && target.components.at(-1) !== INDEX_FILE) {
    // A directory's relative links resolve against it only when its URL ends in "/".
    res.setHeader("location", `${(req.url ?? "/").split("?")[0]}/`);
    send(res, 301, "");
    return "served";
  }
  res.writeHead(200, {
    "content-type": contentTypeOf(file.name),
    "content-length": file.bytes.length,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : file.bytes);
  return "served";
}

/**
 * The components of a request path. Each segment is percent-decoded once and refused when the
 * decoded text could mean something else on disk (`.`, `..`, a `/` or NUL): encoded traversal
 * such as `%2e%2e` or `..%2f` never reaches the filesystem.
 */
export function requestPath(url: string): { components: string[]; directory: boolean } | undefined {
  const pathname = url.split(/[?#]/, 1)[0] ?? "/";
  const segments = pathname.split("/").slice(1);
  const components: string[] = [];
  for (const segment of segments) {
    if (segment === "") continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (decoded === "." || decoded === ".." || decoded.includes("/") || decoded.includes("\0"))
      return undefined;
    components.push(decoded);
  }
  return { components, directory: pathname.endsWith("/") };
}

function send(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end(message);
}
