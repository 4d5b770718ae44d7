import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { connect } from "node:net";
import { createLocalFs } from "@pablo/fs";
import { describe, expect, it, onTestFinished } from "vitest";
import { type TestTree, TINY_PNG, useTree } from "./test-support/workspace.js";
import { openWorkspaceFiles } from "./workspace-files.js";
import { requestPath, startWorkspaceServer, type WorkspaceServer } from "./workspace-server.js";

interface Reply {
  status: number;
  type: string | undefined;
  location: string | undefined;
  body: string;
}

async function serve(
  tree: TestTree,
  options: { maxFileBytes?: number; allows?: (path: string) => boolean } = {},
): Promise<WorkspaceServer> {
  const files = await openWorkspaceFiles(createLocalFs(), tree.workspace);
  const server = await startWorkspaceServer({
    files,
    maxFileBytes: options.maxFileBytes ?? 1024 * 1024,
    allows: options.allows ?? (() => true),
  });
  onTestFinished(async () => {
    await server.close();
    await files.close();
  });
  return server;
}

/** A raw request: the path is sent exactly as given, never normalized by a client. */
function get(server: WorkspaceServer, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<Reply>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"],
          location: res.headers.location,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the loopback workspace server", () => {
  it("serves workspace files with their content types, and a directory's index.html", async () => {
    const tree = useTree();
    tree.write("index.html", "<title>root</title>");
    tree.write("docs/index.html", "<title>docs</title>");
    tree.write("docs/app.js", "console.log(1)");
    tree.write("img/a b.png", TINY_PNG);
    const server = await serve(tree);

    expect(await get(server, "/")).toMatchObject({
      status: 200,
      type: "text/html; charset=utf-8",
      body: "<title>root</title>",
    });
    expect(await get(server, "/docs/")).toMatchObject({ status: 200, body: "<title>docs</title>" });
    expect(await get(server, "/docs")).toMatchObject({ status: 301, location: "/docs/" });
    expect(await get(server, "/docs/app.js?v=2")).toMatchObject({
      status: 200,
      type: "text/javascript; charset=utf-8",
    });
    expect(await get(server, "/img/a%20b.png")).toMatchObject({ status: 200, type: "image/png" });
    expect(await get(server, "/docs/app.js", {}, "HEAD")).toMatchObject({ status: 200, body: "" });
    expect(await get(server, "/docs/app.js", {}, "POST")).toMatchObject({ status: 405 });
    expect(await get(server, "/missing.html")).toMatchObject({ status: 404 });
  });

  it("refuses traversal, plain or encoded, before touching the filesystem", async () => {
    const tree = useTree();
    tree.write(`${tree.outside}/secret.txt`, "outside secret");
    tree.write("sub/page.html", "inside");
    const server = await serve(tree);
    const plainEscape = `/../${tree.outside.split("/").at(-1)}/secret.txt`;
    for (const path of [
      plainEscape,
      "/sub/%2e%2e/%2e%2e/outside/secret.txt",
      "/sub/..%2f..%2foutside%2fsecret.txt",
      "/sub/%2E%2E/page.html",
      "/%00",
      "/%zz",
    ]) {
      const reply = await get(server, path);
      expect(reply.status, path).toBe(400);
      expect(reply.body).not.toContain("outside secret");
    }
  });

  it("follows no symbolic link, at the leaf or at an ancestor, even one pointing inside", async () => {
    const tree = useTree();
    tree.write(`${tree.outside}/secret.txt`, "outside secret");
    tree.write("real/inside.txt", "inside");
    tree.link("leaf.txt", `${tree.outside}/secret.txt`);
    tree.link("dir", tree.outside);
    tree.link("alias", `${tree.workspace}/real`);
    const server = await serve(tree);

    for (const path of ["/leaf.txt", "/dir/secret.txt", "/alias/inside.txt", "/dir/"]) {
      const reply = await get(server, path);
      expect(reply.status, path).toBe(403);
      expect(reply.body).not.toContain("outside secret");
    }
    expect((await get(server, "/real/inside.txt")).body).toBe("inside");
  });

  it("refuses special files without blocking on them, and files over the size bound", async () => {
    const tree = useTree();
    execFileSync("mkfifo", [`${tree.workspace}/pipe`]);
    tree.write("big.txt", "x".repeat(2048));
    tree.write("small.txt", "x".repeat(1024));
    const server = await serve(tree, { maxFileBytes: 1024 });

    expect(await get(server, "/pipe")).toMatchObject({ status: 403 });
    expect(await get(server, "/big.txt")).toMatchObject({ status: 413 });
    expect(await get(server, "/small.txt")).toMatchObject({ status: 200 });
  });

  it("asks the call's authority about every file it serves", async () => {
    const tree = useTree();
    tree.write("public.txt", "public");
    tree.write("private/key.txt", "private");
    const asked: string[] = [];
    const server = await serve(tree, {
      allows: (path) => {
        asked.push(path);
        return !path.includes("/private/");
      },
    });

    expect((await get(server, "/public.txt")).status).toBe(200);
    expect(await get(server, "/private/key.txt")).toMatchObject({ status: 403 });
    expect(asked).toEqual([`${tree.workspace}/public.txt`, `${tree.workspace}/private/key.txt`]);
    expect(server.deniedFiles).toBe(1);
  });

  it("answers only its own origin: proxied requests, CONNECT and foreign Host headers are refused", async () => {
    const tree = useTree();
    tree.write("index.html", "inside");
    const server = await serve(tree);

    expect((await get(server, "http://example.com/")).status).toBe(403);
    expect((await get(server, "/", { host: "attacker.test" })).status).toBe(403);
    const connectReply = await new Promise<string>((resolve) => {
      const socket = connect(server.port, "127.0.0.1", () =>
        socket.write("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      );
      let text = "";
      socket.on("data", (c) => {
        text += c.toString();
      });
      socket.on("close", () => resolve(text));
    });
    expect(connectReply).toMatch(/^HTTP\/1\.1 403/);
    expect(server.foreignRequests).toBe(3);
  });
});

describe("requestPath", () => {
  it("decodes each segment once and keeps the directory marker", () => {
    expect(requestPath("/a%20b/c.html?x=1#y")).toEqual({ components: ["a b", "c.html"], directory: false });
    expect(requestPath("/docs/")).toEqual({ components: ["docs"], directory: true });
    expect(requestPath("/a/%2e%2e/b")).toBeUndefined();
    expect(requestPath("/a%2fb")).toBeUndefined();
  });
});
