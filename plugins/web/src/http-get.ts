import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isLoopbackAddress } from "./url.js";

export interface GetOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly allowLoopback: boolean;
  readonly userAgent: string;
  readonly accept?: string;
  readonly signal: AbortSignal;
}

export interface GetResponse {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  /** The body, read up to `maxBytes`; empty when `read` is false. */
  readonly body: Buffer;
  /** More bytes were sent than `maxBytes` (the rest was not read). */
  readonly truncated: boolean;
  /** False when the body was not read at all (a redirect, a non-text type). */
  readonly read: boolean;
}

/** Whether to read a response's body, decided from its status and headers. */
export type BodyPolicy = (status: number, headers: IncomingMessage["headers"]) => boolean;

/**
 * One GET of exactly `href`: no redirects followed, no cookies, identity encoding, bounded in
 * bytes and time, aborted with `signal`. Names that resolve to a loopback address are refused
 * unless loopback is allowed, so DNS cannot route around the URL check.
 */
export function httpGet(href: string, options: GetOptions, readBody: BodyPolicy): Promise<GetResponse> {
  return new Promise((resolve, reject) => {
    const timer = AbortSignal.timeout(options.timeoutMs);
    const signal = AbortSignal.any([options.signal, timer]);
    const send = href.startsWith("https:") ? httpsRequest : httpRequest;
    const request = send(
      href,
      {
        method: "GET",
        agent: false,
        signal,
        lookup: guardedLookup(options.allowLoopback),
        headers: {
          accept: options.accept ?? "text/html, text/plain, application/json, */*;q=0.5",
          "accept-encoding": "identity",
          "user-agent": options.userAgent,
        },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (!readBody(status, response.headers)) {
          response.destroy();
          resolve({
            status,
            headers: response.headers,
            body: Buffer.alloc(0),
            truncated: false,
            read: false,
          });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on("data", (chunk: Buffer) => {
          if (truncated) return;
          const room = options.maxBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            response.destroy();
            resolve({
              status,
              headers: response.headers,
              body: Buffer.concat(chunks),
              truncated,
              read: true,
            });
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", () =>
          resolve({ status, headers: response.headers, body: Buffer.concat(chunks), truncated, read: true }),
        );
        response.on("error", (error) => reject(timer.aborted ? new TimeoutError(options.timeoutMs) : error));
      },
    );
    request.on("error", (error) => reject(timer.aborted ? new TimeoutError(options.timeoutMs) : error));
    request.end();
  });
}

export class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no complete response within ${ms} ms`);
    this.name = "TimeoutError";
  }
}

export class LoopbackRefused extends Error {
  constructor(host: string) {
    super(`${host} resolves to a loopback address, which is not allowed`);
    this.name = "LoopbackRefused";
  }
}

function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0);
      if (!allowLoopback && addresses.some((a) => isLoopbackAddress(a.address))) {
        return callback(new LoopbackRefused(hostname), "", 0);
      }
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new Error(`no address for ${hostname}`), "", 0);
      callback(null, first.address, first.family);
    });
  };
}
