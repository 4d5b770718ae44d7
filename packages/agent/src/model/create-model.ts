import { isAbsolute, resolve } from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { CredentialResolver } from "@pablo/kernel";
import { loadReplay, replayModel } from "./replay-model.js";
import type { RetryPolicy } from "./retry.js";
import { sdkModel } from "./sdk-model.js";
import { type Model, ModelErrorCode } from "./types.js";

/** Where a model's key may come from besides the environment: the deployment's `model.*` credentials. */
export interface ModelCredentials {
  readonly resolver: CredentialResolver;
  /** The credential's name in `[credentials]` (default: the provider, `anthropic` or `openai-compatible`). */
  readonly name?: string;
}

export interface CreateModelOptions {
  /** Base for a relative `replay:FILE` (default: the process's working directory). */
  readonly cwd?: string;
  readonly retry?: RetryPolicy;
  readonly maxOutputTokens?: number;
}

export type CreateModelResult =
  | {
      readonly ok: true;
      readonly model: Model;
      /** Secret values the model uses, so that a host can scrub them from everything it prints. */
      readonly secrets: readonly string[];
    }
  | {
      readonly ok: false;
      readonly code: typeof ModelErrorCode.MODEL_SPEC | typeof ModelErrorCode.MODEL_CREDENTIALS;
      readonly message: string;
    };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Builds a model from `PROVIDER:NAME`. `anthropic:NAME` uses the Messages API
 * (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`); `openai-compatible:NAME` uses chat completions
 * (`OPENAI_API_KEY`, optional for local servers, and `OPENAI_BASE_URL`, default
 * https://api.openai.com/v1); `replay:FILE` plays a transcript. A deployment credential for
 * consumer `model.<provider>` and the base URL as destination wins over the environment. Keys
 * travel only to their base URL, never in `id`, events or messages; plain http is accepted only
 * for loopback hosts, or for any host when no key is sent.
 */
export function createModel(
  spec: string,
  env: Env,
  credentials?: ModelCredentials,
  options: CreateModelOptions = {},
): CreateModelResult {
  const colon = spec.indexOf(":");
  const provider = colon > 0 ? spec.slice(0, colon) : "";
  const name = colon > 0 ? spec.slice(colon + 1) : "";
  if (name === "") return specError(`--model must be PROVIDER:NAME, got ${JSON.stringify(spec)}`);
  switch (provider) {
    case "replay": {
      const path = isAbsolute(name) ? name : resolve(options.cwd ?? process.cwd(), name);
      const loaded = loadReplay(path);
      if (!loaded.ok) return specError(`replay transcript: ${loaded.error}`);
      return { ok: true, model: replayModel(loaded.value, spec), secrets: [] };
    }
    case "anthropic": {
      const baseURL = anthropicBase(env["ANTHROPIC_BASE_URL"]);
      if (!baseURL.ok) return specError(baseURL.error);
      const key = keyFor("anthropic", baseURL.url, env["ANTHROPIC_API_KEY"], credentials);
      if (!key.ok) return key;
      if (key.value === undefined) {
        return credentialError("anthropic needs ANTHROPIC_API_KEY or a model.anthropic credential");
      }
      const transport = checkTransport(baseURL.url, true);
      if (transport) return credentialError(transport);
      const language = createAnthropic({ baseURL: baseURL.url, apiKey: key.value })(name);
      return { ok: true, model: sdkModel(spec, language, sdkOptions(options)), secrets: [key.value] };
    }
    case "openai-compatible": {
      const raw = env["OPENAI_BASE_URL"] ?? "https://api.openai.com/v1";
      const parsed = parseUrl(raw);
      if (!parsed) return specError(`OPENAI_BASE_URL is not a URL: ${JSON.stringify(raw)}`);
      const baseURL = raw.replace(/\/+$/, "");
      const key = keyFor("openai-compatible", baseURL, env["OPENAI_API_KEY"], credentials);
      if (!key.ok) return key;
      const transport = checkTransport(baseURL, key.value !== undefined);
      if (transport) return credentialError(transport);
      const language = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        includeUsage: true,
        ...(key.value !== undefined ? { apiKey: key.value } : {}),
      }).chatModel(name);
      return {
        ok: true,
        model: sdkModel(spec, language, sdkOptions(options)),
        secrets: key.value !== undefined ? [key.value] : [],
      };
    }
    default:
      return specError(
        `unknown model provider ${JSON.stringify(provider)}: use anthropic:NAME, openai-compatible:NAME or replay:FILE`,
      );
  }
}

function sdkOptions(options: CreateModelOptions) {
  return {
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
  };
}

/**
 * Anthropic's own SDKs take the host (`https://api.anthropic.com`); the AI SDK wants the versioned
 * base. A base without a path gets `/v1`.
 */
function anthropicBase(raw: string | undefined): { ok: true; url: string } | { ok: false; error: string } {
  if (raw === undefined || raw === "") return { ok: true, url: "https://api.anthropic.com/v1" };
  const url = parseUrl(raw);
  if (!url) return { ok: false, error: `ANTHROPIC_BASE_URL is not a URL: ${JSON.stringify(raw)}` };
  const trimmed = raw.replace(/\/+$/, "");
  return { ok: true, url: url.pathname === "/" || url.pathname === "" ? `${trimmed}/v1` : trimmed };
}

function keyFor(
  provider: string,
  destination: string,
  fromEnv: string | undefined,
  credentials: ModelCredentials | undefined,
): { ok: true; value: string | undefined } | Extract<CreateModelResult, { ok: false }> {
  if (credentials) {
    const resolved = credentials.resolver.resolve(credentials.name ?? provider, {
      consumer: `model.${provider}`,
      destination,
    });
    if (resolved.ok) return { ok: true, value: resolved.value };
    // A credential that exists but is bound elsewhere fails closed instead of falling back.
    if (resolved.code !== "CREDENTIAL_NOT_FOUND") return credentialError(resolved.message);
  }
  return { ok: true, value: fromEnv === "" ? undefined : fromEnv };
}

function checkTransport(base: string, sendsKey: boolean): string | undefined {
  const url = parseUrl(base);
  if (!url) return `base URL is not a URL: ${JSON.stringify(base)}`;
  if (url.protocol === "https:") return undefined;
  if (url.protocol !== "http:") return `base URL must be http or https, got ${url.protocol}`;
  const loopback = ["127.0.0.1", "localhost", "[::1]", "::1"].includes(url.hostname);
  if (loopback || !sendsKey) return undefined;
  return `refusing to send an API key over plain http to ${url.host}; use https`;
}

function parseUrl(raw: string): URL | undefined {
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function specError(message: string): CreateModelResult {
  return { ok: false, code: ModelErrorCode.MODEL_SPEC, message };
}

function credentialError(message: string): Extract<CreateModelResult, { ok: false }> {
  return { ok: false, code: ModelErrorCode.MODEL_CREDENTIALS, message };
}
