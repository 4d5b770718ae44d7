import { createServer } from "node:http";
import { onTestFinished } from "vitest";

/** Another loopback server the page tries to reach; it records every request and upgrade it gets. */
export async function useRecordingServer(): Promise<{ origin: string; port: number; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.setHeader("access-control-allow-origin", "*");
    res.end("reached");
  });
  server.on("upgrade", (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { origin: `http://127.0.0.1:${address.port}`, port: address.port, hits };
}
