import { readFileSync } from "node:fs";
import type { CredentialResolution, CredentialResolver, CredentialUse } from "@pablo/kernel";
import { type ConfigError, ConfigErrorCode } from "./errors.js";
import type { CredentialConfig } from "./sections.js";

/** A place in the deployment that names a credential: which consumer, which exact destination. */
export interface CredentialReference {
  readonly credential: string;
  readonly consumer: string;
  readonly destination: string;
  /** Where it is referenced, for error messages (`options.mcp.servers.records.env.RECORDS_TOKEN`). */
  readonly keyPath: string;
}

/**
 * Checks references against the `[credentials.*]` table: each reference names a credential whose
 * consumer matches, and each credential reaches exactly one destination. Returns config errors.
 */
export function checkCredentialReferences(
  credentials: Readonly<Record<string, CredentialConfig>>,
  references: readonly CredentialReference[],
  file: string,
): ConfigError[] {
  const errors: ConfigError[] = [];
  const destinations = new Map<string, Set<string>>();
  for (const ref of references) {
    const credential = credentials[ref.credential];
    const error = (message: string) =>
      errors.push({ code: ConfigErrorCode.CREDENTIAL, file, line: 0, keyPath: ref.keyPath, message });
    if (!credential) {
      error(`names credential ${JSON.stringify(ref.credential)}, which [credentials] does not define`);
      continue;
    }
    if (credential.consumer !== ref.consumer) {
      error(`credential ${ref.credential} is for consumer ${credential.consumer}, not ${ref.consumer}`);
      continue;
    }
    if (credential.destination !== undefined && credential.destination !== ref.destination) {
      error(
        `credential ${ref.credential} is for destination ${credential.destination}, not ${ref.destination}`,
      );
      continue;
    }
    const set = destinations.get(ref.credential) ?? new Set<string>();
    set.add(ref.destination);
    destinations.set(ref.credential, set);
  }
  for (const [name, set] of destinations) {
    if (set.size > 1) {
      errors.push({
        code: ConfigErrorCode.CREDENTIAL,
        file,
        line: 0,
        keyPath: `credentials.${name}`,
        message: `credential ${name} is referenced by ${[...set].sort().join(" and ")}; a credential reaches exactly one destination`,
      });
    }
  }
  return errors;
}

/**
 * Resolves credentials only for the consumer and destination they are bound to. Values are read
 * lazily from the host environment or a file, never logged, and collected so outputs can be
 * scrubbed of them.
 */
export function createCredentialResolver(
  credentials: Readonly<Record<string, CredentialConfig>>,
  references: readonly CredentialReference[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): CredentialResolver {
  const bound = new Map<string, CredentialUse>();
  for (const ref of references) {
    const credential = credentials[ref.credential];
    if (credential && credential.consumer === ref.consumer) {
      bound.set(ref.credential, {
        consumer: ref.consumer,
        destination: credential.destination ?? ref.destination,
      });
    }
  }
  const values = new Set<string>();
  return {
    resolve(name: string, use: CredentialUse): CredentialResolution {
      const credential = credentials[name];
      if (!credential)
        return { ok: false, code: "CREDENTIAL_NOT_FOUND", message: `no credential named ${name}` };
      const binding =
        bound.get(name) ??
        (credential.destination
          ? { consumer: credential.consumer, destination: credential.destination }
          : undefined);
      if (!binding || binding.consumer !== use.consumer || binding.destination !== use.destination) {
        return {
          ok: false,
          code: "CREDENTIAL_SCOPE",
          message: `credential ${name} is not available to ${use.consumer} for ${use.destination}`,
        };
      }
      for (const source of credential.sources) {
        const value = source.kind === "environment" ? env[source.name] : readSecretFile(source.path);
        if (value !== undefined && value !== "") {
          values.add(value);
          return { ok: true, value };
        }
      }
      return {
        ok: false,
        code: "CREDENTIAL_UNAVAILABLE",
        message: `credential ${name} has no available source`,
      };
    },
    resolvedValues: () => [...values],
  };
}

function readSecretFile(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8").replace(/\r?\n$/, "");
  } catch {
    return undefined;
  }
}
