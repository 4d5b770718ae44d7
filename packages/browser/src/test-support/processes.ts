import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * Command lines (arguments joined by spaces: Chromium's children rewrite theirs that way) of live
 * processes whose profile is any run directory of this package.
 */
export function previewProcesses(): string[] {
  const prefix = ` --user-data-dir=${tmpdir()}/pablo-browser-`;
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(") ") + 2).startsWith("Z")) continue;
      const line = ` ${readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ")} `;
      if (line.includes(prefix) && !line.includes("pablo-browser-test-")) found.push(line);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}
