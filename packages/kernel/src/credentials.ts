import type { CredentialErrorCode } from "./errors.js";

/**
 * How a package asks for a secret. Credentials resolve only for their named consumer and exact
 * destination (seed 002): a credential configured for consumer `mcp.environment` of server
 * `records` cannot reach any other server, header, process or log.
 *
 * Consumers used by first-party packages: `mcp.environment` and `mcp.headers` (destination: the
 * configured server name), `a2a.bearer` (destination: the exact RPC endpoint URL), `model.<provider>`
 * (destination: the provider's base URL), `plugin.<pluginId>` (destination: the plugin ID).
 */
export interface CredentialUse {
  readonly consumer: string;
  readonly destination: string;
}

export type CredentialResolution =
  | { readonly ok: true; readonly value: string }
  | {
      readonly ok: false;
      readonly code: CredentialErrorCode;
      readonly message: string;
    };

/**
 * Implemented by the distribution (for example from deployment.toml's `[credentials.NAME]`).
 * Contract: never returns a value for a use other than the one the credential names, and never
 * puts a value into its error messages.
 */
export interface CredentialResolver {
  resolve(name: string, use: CredentialUse): CredentialResolution;
  /** Every value resolved so far, so that outputs can be scrubbed of them. */
  resolvedValues(): readonly string[];
}
