import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { isMap, isSeq, parseDocument, type YAMLMap } from "yaml";
import { MAX_YAML_ALIASES } from "./load-catalog.js";
import { signAction } from "./signing.js";

/**
 * Signs every action of a catalog's YAML text: sets each script's `sha256` from the file's bytes
 * (read relative to `dir`), then the action's `signature`. Comments and layout are kept. Throws
 * on YAML it cannot parse or a script it cannot read: signing is an author's tool, not a loader.
 */
export function signCatalogText(text: string, dir: string, privateKeyPem: string): string {
  const doc = parseDocument(text, { uniqueKeys: true, schema: "core" });
  if (doc.errors.length > 0) throw new SyntaxError(doc.errors[0]?.message ?? "invalid YAML");
  const root = doc.contents;
  const actions: YAMLMap[] = [];
  if (isMap(root) && isSeq(root.get("actions"))) {
    const list = root.get("actions");
    if (isSeq(list)) for (const item of list.items) if (isMap(item)) actions.push(item);
  } else if (isMap(root)) actions.push(root);
  if (actions.length === 0) throw new SyntaxError("no actions to sign");
  for (const action of actions) {
    action.delete("signature");
    const script = action.get("script");
    if (isMap(script)) {
      const file = String(script.get("file"));
      if (isAbsolute(file) || file.split("/").includes(".."))
        throw new Error(`script ${file} must be inside the catalog directory`);
      script.set(
        "sha256",
        createHash("sha256")
          .update(readFileSync(resolve(dir, file)))
          .digest("hex"),
      );
    }
    const value = action.toJS(doc, { maxAliasCount: MAX_YAML_ALIASES }) as Record<string, unknown>;
    action.set("signature", doc.createNode(signAction(value, privateKeyPem), { flow: false }));
  }
  return doc.toString();
}
