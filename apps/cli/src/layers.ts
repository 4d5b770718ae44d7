import { type AuthorityLayer, defineLayer } from "@pablo/kernel";

/** A layer that denies a whole tool, citing the configuration key that turned it off. */
export function disabledToolLayer(id: string, tool: string, rule: string): AuthorityLayer {
  return defineLayer({ id, tool: { deny: [{ id: rule, match: tool }] } });
}
