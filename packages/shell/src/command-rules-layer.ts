import { type AuthorityLayer, defineLayer } from "@pablo/kernel";
import type { ShellCommands } from "./options.js";

/**
 * Turns `[options.shell.commands]` into a kernel authority layer whose `command` dimension holds
 * the rules unchanged: deny wins, a non-empty allow list denies every unmatched simple command, and
 * a layer that restricts commands at all denies every construct shell.run could not prove.
 * Throws {@link PabloError} `INVALID_POLICY` (from `defineLayer`) for duplicate rule IDs or a
 * relative executable. An absent section yields a layer that restricts nothing.
 */
export function commandRulesLayer(id: string, commands: ShellCommands | undefined): AuthorityLayer {
  if (!commands) return defineLayer({ id, description: "[options.shell.commands] (absent)" });
  return defineLayer({
    id,
    description: "[options.shell.commands]",
    command: {
      ...(commands.default ? { default: commands.default } : {}),
      ...(commands.allow ? { allow: commands.allow.map((rule) => ({ ...rule, args: [...rule.args] })) } : {}),
      ...(commands.deny ? { deny: commands.deny.map((rule) => ({ ...rule, args: [...rule.args] })) } : {}),
    },
  });
}
