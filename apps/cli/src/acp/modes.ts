import type { SessionConfigOption, SessionModeState } from "@agentclientprotocol/sdk";
import type { OperatingMode, PermissionMode } from "@pablo/kernel";

/**
 * Pablo's operating modes as ACP session modes. The kernel enforces the matrix of each one; the
 * descriptions only tell the person in the editor what to expect.
 */
export const OPERATING_MODES: readonly { id: OperatingMode; name: string; description: string }[] = [
  {
    id: "agent",
    name: "Agent",
    description: "Reads, edits and runs commands within the deployment's policy.",
  },
  {
    id: "plan",
    name: "Plan",
    description:
      "Reads and searches only; the model writes a plan under .pablo/ and submits it for approval.",
  },
  {
    id: "goal",
    name: "Goal",
    description:
      "Reads and searches only; the model writes a goal under .pablo/ and submits it for approval.",
  },
];

export function isOperatingMode(id: string): id is OperatingMode {
  return OPERATING_MODES.some((mode) => mode.id === id);
}

export function modeState(current: OperatingMode): SessionModeState {
  return {
    currentModeId: current,
    availableModes: OPERATING_MODES.map(({ id, name, description }) => ({ id, name, description })),
  };
}

/** The ID of the session config option that selects the permission mode. */
export const PERMISSION_OPTION_ID = "permission";

const PERMISSION_CHOICES: readonly { value: PermissionMode; name: string; description: string }[] = [
  { value: "read-only", name: "Read only", description: "Reads run; writes and commands are denied." },
  { value: "ask", name: "Ask", description: "Edits, commands and other risky calls ask first." },
  {
    value: "accept-edits",
    name: "Accept edits",
    description: "Workspace edits run without asking; commands still ask.",
  },
  { value: "auto", name: "Auto", description: "Calls the policy admits run without asking." },
];

const STRICTNESS: Readonly<Record<PermissionMode, number>> = {
  auto: 0,
  "accept-edits": 1,
  ask: 2,
  "read-only": 3,
};

/**
 * The permission modes a session may switch to: never looser than the deployment's `loosest`, so
 * an editor cannot loosen a locked deployment any more than `--permission` can.
 */
export function allowedPermissionModes(loosest: PermissionMode | undefined): PermissionMode[] {
  return PERMISSION_CHOICES.map((c) => c.value).filter(
    (mode) => loosest === undefined || STRICTNESS[mode] >= STRICTNESS[loosest],
  );
}

export function permissionOption(
  current: PermissionMode,
  allowed: readonly PermissionMode[],
): SessionConfigOption {
  return {
    id: PERMISSION_OPTION_ID,
    name: "Permission",
    description: "When Pablo asks before a call runs. The deployment's loosest mode bounds the choices.",
    type: "select",
    currentValue: current,
    options: PERMISSION_CHOICES.filter((c) => allowed.includes(c.value)).map(
      ({ value, name, description }) => ({
        value,
        name,
        description,
      }),
    ),
  };
}
