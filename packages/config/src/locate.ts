/**
 * Finds the line of a key path in TOML text, for error messages. smol-toml returns values without
 * positions, so this reads the text the way a person would: it tracks the current table header
 * (`[a.b]`, `[[a.b]]`) and matches `key =` lines, dotted keys and inline-table keys. When a key
 * cannot be placed exactly, the line of its closest enclosing table is returned.
 */
export function locateKey(text: string, keyPath: readonly string[]): number {
  const lines = text.split(/\r?\n/);
  let best = 0;
  let bestDepth = -1;
  let table: string[] = [];
  const arrayCounts = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const line = stripComment(lines[i] ?? "").trim();
    if (line === "") continue;
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      table = splitKey(header[1] ?? "");
      if (line.startsWith("[[")) {
        const key = table.join(".");
        const index = arrayCounts.get(key) ?? 0;
        arrayCounts.set(key, index + 1);
        table = [...table, String(index)];
      }
      const depth = matchDepth(keyPath, table);
      if (depth === table.length && depth > bestDepth) {
        best = i + 1;
        bestDepth = depth;
      }
      continue;
    }
    const assignment = /^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_.\- ]+?))\s*=\s*(.*)$/.exec(line);
    if (!assignment) continue;
    const full = [...table, ...splitKey(assignment[1] ?? "")];
    let depth = matchDepth(keyPath, full);
    if (depth === full.length) {
      // Inline tables and arrays on the same line: count nested keys that appear in the text.
      const rest = assignment[2] ?? "";
      for (const key of keyPath.slice(depth)) {
        if (!/^\d+$/.test(key) && new RegExp(`(^|[{,\\s])"?${escapeRegExp(key)}"?\\s*=`).test(rest)) depth++;
        else break;
      }
      if (depth > bestDepth) {
        best = i + 1;
        bestDepth = depth;
      }
    }
  }
  return best;
}

function matchDepth(keyPath: readonly string[], candidate: readonly string[]): number {
  let depth = 0;
  while (depth < candidate.length && depth < keyPath.length && candidate[depth] === keyPath[depth]) depth++;
  return depth;
}

function splitKey(text: string): string[] {
  const parts: string[] = [];
  const pattern = /\s*("([^"]*)"|'([^']*)'|[A-Za-z0-9_-]+)\s*(\.|$)/gy;
  let match: RegExpExecArray | null = pattern.exec(text);
  while (match !== null && match[0] !== "") {
    parts.push(match[2] ?? match[3] ?? match[1] ?? "");
    match = pattern.exec(text);
  }
  return parts;
}

function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === "#") return line.slice(0, i);
  }
  return line;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
