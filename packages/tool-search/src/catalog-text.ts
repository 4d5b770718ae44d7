import type { CatalogEntry } from "@pablo/kernel";

export interface CatalogTextOptions {
  /** Upper bound on the UTF-8 size of the whole text (default 8192 bytes). */
  readonly maxBytes?: number;
  /** Longest summary kept per tool, in characters (default 120). */
  readonly maxSummary?: number;
  /** The name of the search tool to point the model at (default ToolSearch). */
  readonly searchToolName?: string;
}

const encoder = new TextEncoder();

/**
 * The bounded "# On-demand tools" section of a prompt: one line per deferred tool, its provider
 * name and one-line summary, in catalog order. When the bound is reached the rest are counted,
 * not listed (ToolSearch still finds them). Returns "" when there is nothing deferred.
 */
export function onDemandCatalog(
  entries: readonly Pick<CatalogEntry, "providerName" | "definition">[],
  options: CatalogTextOptions = {},
): string {
  if (entries.length === 0) return "";
  const maxBytes = Math.max(512, options.maxBytes ?? 8192);
  const maxSummary = options.maxSummary ?? 120;
  const search = options.searchToolName ?? "ToolSearch";
  const header = `# On-demand tools\nThese tools are available but not loaded. Call ${search} with an exact name or a capability query; the matching tools can be called from the next turn.\n`;
  const lines: string[] = [header];
  let used = encoder.encode(header).length;
  const reserve = 80; // room for the "and N more" line
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as (typeof entries)[number];
    const line = `- ${entry.providerName}: ${oneLine(entry.definition.summary, maxSummary)}\n`;
    const size = encoder.encode(line).length;
    if (used + size + (i < entries.length - 1 ? reserve : 0) > maxBytes) {
      lines.push(`- … and ${entries.length - i} more; find them with ${search}\n`);
      break;
    }
    lines.push(line);
    used += size;
  }
  return lines.join("");
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}
