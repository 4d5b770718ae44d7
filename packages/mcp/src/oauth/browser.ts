import { spawn } from "node:child_process";

/**
 * Opens the authorization page: with `$BROWSER` when it is set (its first `:`-separated entry,
 * split at spaces, `%s` replaced by the URL or the URL appended; no shell), else by printing the
 * URL. A browser that cannot start is reported and the URL printed. The browser is the person's
 * own program, so it is started detached and left running.
 */
export function openAuthorizationPage(
  url: string,
  server: string,
  env: Readonly<Record<string, string | undefined>>,
  stderr: (text: string) => void,
): void {
  const printUrl = () => stderr(`pablo: to authorize ${server}, open this URL in a browser:\n  ${url}\n`);
  const command = (env["BROWSER"] ?? "").split(":")[0]?.trim() ?? "";
  if (command === "") {
    printUrl();
    return;
  }
  const words = command.split(/\s+/);
  const args = words.slice(1).some((w) => w.includes("%s"))
    ? words.slice(1).map((w) => w.replaceAll("%s", url))
    : [...words.slice(1), url];
  const program = words[0] as string;
  try {
    const child = spawn(program, args, { stdio: "ignore", detached: true, env: { ...env } });
    child.once("error", (error) => {
      stderr(`pablo: $BROWSER (${program}) did not start: ${error.message}\n`);
      printUrl();
    });
    child.unref();
    stderr(`pablo: opened the authorization page for ${server} with $BROWSER (${program})\n`);
  } catch (error) {
    stderr(`pablo: $BROWSER (${program}) did not start: ${(error as Error).message}\n`);
    printUrl();
  }
}
