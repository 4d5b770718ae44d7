import { randomUUID } from "node:crypto";
import { realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type A2aOptions, a2aCredentialReferences } from "@pablo/a2a/options";
import { defaultStorePath, openAuditStore } from "@pablo/audit";
import {
  type AuditOptions,
  type ConfigError,
  ConfigErrorCode,
  type CredentialReference,
  checkCredentialReferences,
  createCredentialResolver,
  type Deployment,
  deploymentLayer,
  flagsLayer,
  type LimitsOptions,
  loadDeploymentFile,
  loadJsonPolicy,
  type ModesOptions,
  type NetworkOptions,
  type PermissionOptions,
  type PolicyOptions,
  parseBindings,
} from "@pablo/config";
import {
  AuditErrorCode,
  type AuthorityLayer,
  type Catalog,
  CatalogBuilder,
  type CatalogDiagnostic,
  type CredentialResolver,
  createKernel,
  type EventSink,
  type Kernel,
  type OperatingMode,
  PabloError,
  type PermissionBroker,
  type PermissionMode,
  type Session,
  type ToolProvider,
} from "@pablo/kernel";
import { stateDirectory } from "@pablo/kernel/node";
import type { McpAuthorizationState } from "@pablo/mcp";
import type { GlobalOptions } from "./args.js";
import { ConfigFailure } from "./config-failure.js";
import { PRESET_DIR } from "./package-root.js";
import { distributionSections, openProviders, sectionLayers, type TaskSkills } from "./providers.js";
import type { SandboxPlan } from "./sandbox.js";
import { claimSession, sweepStorage, type TaskStorage, taskStorage } from "./storage.js";

export { ConfigFailure } from "./config-failure.js";

/** Everything one CLI task needs: the frozen catalog, the session over it, and how to close it. */
export interface TaskEnvironment {
  readonly kernel: Kernel;
  readonly session: Session;
  readonly catalog: Catalog;
  readonly deployment: Deployment;
  readonly layers: readonly AuthorityLayer[];
  readonly diagnostics: readonly CatalogDiagnostic[];
  readonly workspace: string;
  readonly stateDir: string;
  /** Set when `--permission` asked for a mode looser than `[options.permission] loosest`: what was used instead. */
  readonly permissionRaised?: string;
  /** Where scratch and review snapshots live for this task (never inside the workspace). */
  readonly storage: TaskStorage;
  readonly auditPath: string;
  readonly credentials: CredentialResolver;
  readonly references: readonly CredentialReference[];
  readonly providers: readonly ToolProvider[];
  /** The authorization state of each `auth = "oauth"` MCP server, from the token store. */
  readonly mcpAuthorization: readonly McpAuthorizationState[];
  readonly skills: TaskSkills | undefined;
  /** The session's scratch directory: absolute, outside the workspace, made on first write. */
  readonly scratchDir: string;
  /** What `[options.sandbox]` made of this task: the containment in force, a virtual fs's changes. */
  readonly sandbox: SandboxPlan;
  /** Audit records that could not be written so far (a disk that filled, a log replaced meanwhile). */
  auditFailures(): number;
  close(): Promise<void>;
}

export interface TaskHooks {
  readonly broker?: PermissionBroker;
  readonly events?: EventSink;
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** `pablo run --seed DIR`: the directory a virtual sandbox starts from. */
  readonly seed?: string;
  /** Cancels admission (slow MCP servers) and closes the task's servers. */
  readonly signal?: AbortSignal;
}

/** Loads configuration, builds the layers and the catalog, and opens one session. */
export async function openTask(global: GlobalOptions, hooks: TaskHooks = {}): Promise<TaskEnvironment> {
  const cwd = hooks.cwd ?? process.cwd();
  const env = hooks.env ?? process.env;
  const { bindings, workspace } = resolveBindings(global, cwd);
  const file = global.config ? resolve(cwd, global.config) : join(PRESET_DIR, "cli.toml");
  const loaded = loadDeploymentFile(file, { sections: distributionSections(), bindings });
  if (!loaded.ok) throw new ConfigFailure(loaded.errors);
  const deployment = loaded.value;

  const references = credentialReferences(deployment);
  const credentialErrors = checkCredentialReferences(deployment.credentials, references, file);
  if (credentialErrors.length > 0) throw new ConfigFailure(credentialErrors);
  const credentials = createCredentialResolver(deployment.credentials, references, env);

  const stateDir = stateDirectory(env);
  const auditOptions = deployment.options["audit"] as AuditOptions | undefined;
  const auditKind = auditOptions?.store ?? "jsonl";
  const auditPath = auditOptions?.path ?? defaultStorePath(auditKind, env);
  const storage = taskStorage({ stateDir, workspace, auditPath });
  const layers = [storage.layer, ...buildLayers(deployment, global, cwd)];
  const sessionId = randomUUID();
  sweepStorage(storage);
  const release = claimSession(storage, sessionId);
  const providers = await openProviders({
    deployment,
    workspace,
    storage,
    sessionId,
    credentials,
    bindings,
    layers,
    permission: effectivePermission(
      deployment.options["permission"] as PermissionOptions | undefined,
      global.permission,
    ),
    ...(hooks.signal ? { signal: hooks.signal } : {}),
    ...(hooks.seed ? { seed: resolve(cwd, hooks.seed) } : {}),
    ...(hooks.broker ? { broker: hooks.broker } : {}),
  }).catch((error: unknown) => {
    release();
    throw error;
  });
  const builder = new CatalogBuilder();
  const catalogDiagnostics = await builder.addProviders(providers.providers);
  const catalog = builder.build();
  const permissionOptions = deployment.options["permission"] as PermissionOptions | undefined;
  const grantErrors = unknownGrants(permissionOptions?.grants ?? [], catalog, deployment.file);
  if (grantErrors.length > 0) {
    await Promise.all(providers.providers.map((p) => p.close?.()));
    await providers.close();
    release();
    throw new ConfigFailure(grantErrors);
  }

  const audit = configuredStore(deployment.file, () =>
    openAuditStore({
      kind: auditKind,
      path: auditPath,
      ...(auditOptions?.accesses ? { accesses: auditOptions.accesses } : {}),
    }),
  );
  const kernel = createKernel({
    audit,
    limits: limitsFrom(deployment.options["limits"] as LimitsOptions | undefined),
    captureContent: auditOptions?.capture_content === true,
    ...(hooks.broker ? { broker: hooks.broker } : {}),
    ...(hooks.events ? { events: hooks.events } : {}),
  });
  const modes = deployment.options["modes"] as ModesOptions | undefined;
  const permissionMode = effectivePermission(permissionOptions, global.permission);
  const permissionRaised =
    global.permission && permissionMode !== global.permission
      ? `--permission ${global.permission} is looser than the deployment allows; using ${permissionMode} ([options.permission] loosest = "${permissionMode}" in ${deployment.file})`
      : undefined;
  const session = kernel.openSession({
    sessionId,
    catalog,
    layers: [...layers, ...providers.layers],
    mode: global.mode ?? (modes?.default as OperatingMode | undefined) ?? "agent",
    permission: {
      mode: permissionMode,
      ...(permissionOptions?.grants ? { grants: permissionOptions.grants } : {}),
      ...(permissionOptions?.timeout_ms ? { timeoutMs: permissionOptions.timeout_ms } : {}),
    },
  });
  return {
    kernel,
    session,
    catalog,
    deployment,
    layers: session.layers,
    get diagnostics() {
      return [...providers.diagnostics(), ...catalogDiagnostics];
    },
    workspace,
    stateDir,
    storage,
    auditPath,
    ...(permissionRaised ? { permissionRaised } : {}),
    credentials,
    references,
    providers: providers.providers,
    mcpAuthorization: providers.mcpAuthorization,
    skills: providers.skills,
    scratchDir: providers.scratchDir,
    sandbox: providers.sandbox,
    auditFailures: () => audit.failures ?? 0,
    close: async () => {
      await Promise.all(providers.providers.map((p) => p.close?.()));
      await providers.close();
      await audit.close();
      release();
    },
  };
}

const STRICTNESS: Readonly<Record<PermissionMode, number>> = {
  auto: 0,
  "accept-edits": 1,
  ask: 2,
  "read-only": 3,
};

/**
 * The effective permission mode: the flag, else the deployment's `mode`, else `ask`; never looser
 * than the deployment's `loosest`, so a locked deployment cannot be loosened from the command line.
 */
export function effectivePermission(
  options: { mode?: PermissionMode; loosest?: PermissionMode } | undefined,
  flag: PermissionMode | undefined,
): PermissionMode {
  const chosen = flag ?? options?.mode ?? "ask";
  const loosest = options?.loosest;
  return loosest && STRICTNESS[chosen] < STRICTNESS[loosest] ? loosest : chosen;
}

/** Layers outermost first: the deployment's own, each package's sections, the policy file, the flags. */
export function buildLayers(deployment: Deployment, global: GlobalOptions, cwd: string): AuthorityLayer[] {
  const layers: AuthorityLayer[] = [];
  const failures: ConfigError[] = [];
  const guard = (keyPath: string, build: () => AuthorityLayer[]) => {
    try {
      layers.push(...build());
    } catch (error) {
      failures.push({
        code: ConfigErrorCode.POLICY,
        file: deployment.file,
        line: 0,
        keyPath,
        message: error instanceof Error ? error.message : String(error),
      });
    }
  };
  guard("options.policy", () => [
    deploymentLayer(
      deployment.options["policy"] as PolicyOptions | undefined,
      deployment.options["network"] as NetworkOptions | undefined,
    ),
  ]);
  guard("options", () => sectionLayers(deployment));
  if (global.policy) {
    const policy = loadJsonPolicy(resolve(cwd, global.policy));
    if (!policy.ok) throw new ConfigFailure(policy.errors);
    layers.push(policy.value);
  }
  layers.push(
    flagsLayer({ allowWrite: global.allowWrite, noShell: global.noShell, noFilesystem: global.noFilesystem }),
  );
  if (failures.length > 0) throw new ConfigFailure(failures);
  return layers;
}

/** The `--bind` directories and the canonical workspace; a bad one is a configuration error. */
export function resolveBindings(
  global: GlobalOptions,
  cwd: string,
): { bindings: Record<string, string>; workspace: string } {
  const parsed = parseBindings(global.binds, cwd);
  const errors: ConfigError[] = parsed.errors.map((message) => ({
    code: ConfigErrorCode.INVALID_BINDING,
    file: "command line",
    line: 0,
    keyPath: "--bind",
    message,
  }));
  const requested = global.workspace ? resolve(cwd, global.workspace) : (parsed.bindings["workspace"] ?? cwd);
  let workspace = requested;
  try {
    workspace = realpathSync(requested);
    if (!statSync(workspace).isDirectory()) throw new Error("not a directory");
  } catch {
    errors.push({
      code: ConfigErrorCode.INVALID_BINDING,
      file: "command line",
      line: 0,
      keyPath: "--workspace",
      message: `workspace ${requested} is not an existing directory`,
    });
  }
  if (errors.length > 0) throw new ConfigFailure(errors);
  return { bindings: { ...parsed.bindings, workspace }, workspace };
}

/** Every credential the deployment names, with who may use it and where it may go. */
export function credentialReferences(deployment: Deployment): CredentialReference[] {
  const refs: CredentialReference[] = [];
  const mcp = deployment.options["mcp"] as
    | {
        servers?: Record<
          string,
          {
            env?: Record<string, string>;
            headers?: Record<string, string>;
            client_secret?: string;
            client_key?: string;
          }
        >;
      }
    | undefined;
  for (const [server, config] of Object.entries(mcp?.servers ?? {})) {
    for (const [variable, credential] of Object.entries(config.env ?? {})) {
      refs.push({
        credential,
        consumer: "mcp.environment",
        destination: server,
        keyPath: `options.mcp.servers.${server}.env.${variable}`,
      });
    }
    for (const [header, credential] of Object.entries(config.headers ?? {})) {
      refs.push({
        credential,
        consumer: "mcp.headers",
        destination: server,
        keyPath: `options.mcp.servers.${server}.headers.${header}`,
      });
    }
    // OAuth client authentication, sent only to that server's token endpoint.
    for (const key of ["client_secret", "client_key"] as const) {
      const credential = config[key];
      if (credential === undefined) continue;
      refs.push({
        credential,
        consumer: "mcp.oauth",
        destination: server,
        keyPath: `options.mcp.servers.${server}.${key}`,
      });
    }
  }
  refs.push(...a2aCredentialReferences(deployment.options["a2a"] as A2aOptions | undefined));
  return refs;
}

function limitsFrom(options: LimitsOptions | undefined) {
  if (!options) return {};
  const map: Record<string, number | null> = {};
  const pairs: Array<[keyof LimitsOptions, string]> = [
    ["run_deadline_ms", "runDeadlineMs"],
    ["shell_deadline_ms", "shellDeadlineMs"],
    ["tool_argument_bytes", "toolArgumentBytes"],
    ["tool_result_bytes", "toolResultBytes"],
    ["request_context_bytes", "requestContextBytes"],
    ["model_output_bytes", "modelOutputBytes"],
    ["native_events", "nativeEvents"],
    ["model_calls", "modelCalls"],
    ["tool_calls", "toolCalls"],
  ];
  for (const [from, to] of pairs) if (options[from] !== undefined) map[to] = options[from] as number;
  return map;
}

/** Effects the kernel itself knows; packages add theirs by declaring them on their tools. */
const KERNEL_EFFECTS = ["fs.read", "fs.write", "process", "net", "mcp", "a2a", "child", "ui"];

/**
 * `[options.permission] grants` names effects the read-only profile still allows: a name that no
 * tool of this catalog declares grants nothing, and is almost always a typo (`fetch` for
 * `net.fetch`), so it is a configuration error listing the grants that mean something here.
 */
function unknownGrants(grants: readonly string[], catalog: Catalog, file: string): ConfigError[] {
  const known = new Set([...KERNEL_EFFECTS, ...catalog.entries.flatMap((e) => e.definition.effects)]);
  const unknown = grants.filter((g) => !known.has(g));
  if (unknown.length === 0) return [];
  return [
    {
      code: ConfigErrorCode.INVALID_VALUE,
      file,
      line: 0,
      keyPath: "options.permission.grants",
      message: `unknown grant${unknown.length > 1 ? "s" : ""} ${unknown.map((g) => JSON.stringify(g)).join(", ")}; the grants this catalog knows are ${[...known].sort().join(", ")}`,
    },
  ];
}

/** A store the deployment asked for that this host cannot open (no SQLite here) is exit 2. */
function configuredStore<T>(file: string, open: () => T): T {
  try {
    return open();
  } catch (error) {
    // A log that cannot be written keeps its own code: the path may be the default, not configured.
    if (!(error instanceof PabloError) || error.code === AuditErrorCode.AUDIT_WRITE_FAILED) throw error;
    throw new ConfigFailure([
      {
        code: ConfigErrorCode.INVALID_VALUE,
        file,
        line: 0,
        keyPath: "options.audit.store",
        message: `${error.code}: ${error.message}`,
      },
    ]);
  }
}
