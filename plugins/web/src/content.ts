import { TextDecoder } from "node:util";

/** Media types whose bodies are returned as text. */
export function isTextual(contentType: string | undefined): boolean {
  const type = mediaType(contentType);
  if (type === "") return true; // untyped: try to read it as text
  return (
    type.startsWith("text/") ||
    type.endsWith("+json") ||
    type.endsWith("+xml") ||
    [
      "application/json",
      "application/xml",
      "application/javascript",
      "application/ecmascript",
      "application/x-ndjson",
    ].includes(type)
  );
}

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Decodes with the declared charset (UTF-8 when absent or unknown); invalid bytes become U+FFFD. */
export function decodeText(body: Buffer, contentType: string | undefined): string {
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? "")?.[1] ?? "utf-8";
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder("utf-8");
  }
  return decoder.decode(body);
}
