import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/** Resolves a host name to every address it has (`dns.lookup` with `all: true`). */
export type ResolveAll = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The system resolver, as `fetch` and `node:http` use it (hosts file, then DNS). */
export const systemResolveAll: ResolveAll = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses)));
  });

/** A loopback host name resolved to an address that is not loopback; nothing was sent. */
export class LoopbackNameRefused extends Error {
  constructor(
    readonly hostname: string,
    readonly addresses: readonly string[],
  ) {
    super(
      addresses.length === 0
        ? `${hostname} did not resolve to any address; nothing was sent`
        : `${hostname} resolves to ${addresses.join(", ")}, not only to loopback addresses; plain http is allowed only to loopback, so nothing was sent`,
    );
    this.name = "LoopbackNameRefused";
  }
}

/** An address as `dns.lookup` reports it that is this machine's loopback: 127.0.0.0/8, ::1, ::ffff:127.x.y.z. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.toLowerCase();
  if (isIP(ip) === 4) return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(ip);
  if (isIP(ip) !== 6) return false;
  if (ip === "::1" || ip === "0:0:0:0:0:0:0:1") return true;
  // IPv4-mapped forms, dotted or as the hex the WHATWG parser writes (::ffff:7f00:1).
  const mapped = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):[0-9a-f]{1,4})$/.exec(ip);
  if (mapped?.[1]) return isLoopbackAddress(mapped[1]);
  if (mapped?.[2]) return Number.parseInt(mapped[2], 16) >> 8 === 127;
  return false;
}

/**
 * `fetch` for plain `http:` to loopback, over `node:http` so that the connection goes exactly
 * where the check said: a host name (`localhost`) is resolved when the connection is made, every
 * address it has must be loopback (else {@link LoopbackNameRefused} and nothing is sent), and the
 * socket connects to those checked addresses; there is no second lookup for a resolver to answer
 * differently. The request's `Host` header keeps the name, as a server with DNS-rebinding
 * protection expects. Redirects are returned, never followed; the caller refuses them.
 */
export function loopbackHttpFetch(resolveAll: ResolveAll = systemResolveAll): FetchLike {
  const lookup = checkedLookup(resolveAll);
  return (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const url = new URL(typeof input === "string" ? input : input.href);
      if (url.protocol !== "http:") {
        reject(new Error(`loopbackHttpFetch sends only http: (got ${url.protocol})`));
        return;
      }
      const headers: Record<string, string> = {};
      new Headers(init?.headers).forEach((value, key) => {
        headers[key] = value;
      });
      const body = init?.body;
      if (body !== undefined && body !== null && typeof body !== "string") {
        reject(new Error("loopbackHttpFetch sends only string bodies"));
        return;
      }
      if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
      const request = httpRequest(url, {
        method: init?.method ?? "GET",
        headers,
        agent: false,
        lookup,
        ...(init?.signal ? { signal: init.signal } : {}),
      });
      request.on("response", (response) => resolve(toResponse(response)));
      request.on("error", (error) => reject(unwrap(error)));
      request.end(body ?? undefined);
    });
}

/** A lookup for `node:http` that answers only with addresses that are all loopback. */
function checkedLookup(resolveAll: ResolveAll): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname).then(
      (addresses) => {
        if (addresses.length === 0 || !addresses.every((a) => isLoopbackAddress(a.address))) {
          callback(
            new LoopbackNameRefused(
              hostname,
              addresses.map((a) => a.address),
            ),
            "",
            0,
          );
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = family ? addresses.filter((a) => a.family === family) : [...addresses];
        if ((options as { all?: boolean }).all) {
          (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, usable);
          return;
        }
        const first = usable[0];
        if (!first) callback(new LoopbackNameRefused(hostname, []), "", 0);
        else callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 0),
    );
  };
}

function toResponse(response: IncomingMessage): Response {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const status = response.statusCode ?? 0;
  const empty = status === 204 || status === 304 || status < 200;
  if (empty) response.resume();
  return new Response(empty ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>), {
    status: status < 200 ? 502 : status,
    statusText: response.statusMessage ?? "",
    headers,
  });
}

/** `node:http` wraps lookup failures; the caller should see the refusal itself. */
function unwrap(error: Error): Error {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof LoopbackNameRefused ? cause : error;
}
