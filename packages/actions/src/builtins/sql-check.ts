/** A token of MariaDB/MySQL SQL, as far as the read-only check needs to see it. */
interface Token {
  readonly kind: "word" | "string" | "identifier" | "semicolon" | "punct";
  /** Upper-case for words; the raw text otherwise. */
  readonly text: string;
}

const STATEMENTS = new Set(["SELECT", "SHOW", "DESC", "DESCRIBE", "EXPLAIN"]);

/**
 * Words refused anywhere in a statement, outside string literals and quoted identifiers: writes
 * to files (`INTO OUTFILE` / `DUMPFILE`, and `INTO @var`), file reads, sleeping and locking
 * functions, locking reads (`FOR UPDATE`, `LOCK IN SHARE MODE`, `FOR SHARE`), `ANALYZE` (which
 * executes the statement it explains), `PROCEDURE`, sequence writes, and the data-changing verbs
 * an `EXPLAIN` could wrap.
 */
const REFUSED_WORDS = new Set([
  "INTO",
  "OUTFILE",
  "DUMPFILE",
  "LOAD_FILE",
  "LOAD",
  "SLEEP",
  "BENCHMARK",
  "GET_LOCK",
  "RELEASE_LOCK",
  "RELEASE_ALL_LOCKS",
  "IS_FREE_LOCK",
  "IS_USED_LOCK",
  "MASTER_POS_WAIT",
  "MASTER_GTID_WAIT",
  "SOURCE_POS_WAIT",
  "WAIT_FOR_EXECUTED_GTID_SET",
  "SYS_EXEC",
  "SYS_EVAL",
  "ANALYZE",
  "UPDATE",
  "DELETE",
  "SHARE",
  "LOCK",
  "PROCEDURE",
  "NEXTVAL",
  "SETVAL",
  "HANDLER",
  "CALL",
  "DO",
  "SET",
  "CREATE",
  "DROP",
  "ALTER",
  "TRUNCATE",
  "GRANT",
  "REVOKE",
  "RENAME",
  "KILL",
  "FLUSH",
  "RESET",
  "PURGE",
  "INSTALL",
  "UNINSTALL",
  "SHUTDOWN",
  "PREPARE",
  "EXECUTE",
  "DEALLOCATE",
]);

/** Words a SHOW statement uses as its own syntax (`SHOW CREATE TABLE`, `SHOW CHARACTER SET`). */
const SHOW_SYNTAX = new Set(["CREATE", "SET", "PROCEDURE", "GRANT"]);

/** Verbs that are also string functions: refused only when not called as `NAME(`. */
const VERBS_ALSO_FUNCTIONS = new Set(["INSERT", "REPLACE"]);

/**
 * Why a SQL text is not exactly one read-only SELECT / SHOW / DESC / EXPLAIN statement, or
 * undefined. A real tokenizer reads it: `--` (followed by white space), `#` and block comments,
 * quoted strings with backslash escapes and doubled quotes, and backtick identifiers, so neither
 * a comment nor a string can hide a second statement or smuggle one past the check. Executable
 * comments (`/*! ... *\/`, `/*M! ... *\/`) run their content and are refused.
 */
export function sqlProblem(sql: string): string | undefined {
  const tokens = tokenize(sql);
  if (typeof tokens === "string") return tokens;
  const statements: Token[][] = [[]];
  for (const token of tokens) {
    if (token.kind === "semicolon") statements.push([]);
    else statements[statements.length - 1]?.push(token);
  }
  const nonEmpty = statements.filter((s) => s.length > 0);
  if (nonEmpty.length === 0) return "no statement";
  if (nonEmpty.length > 1) return "exactly one statement is allowed";
  if (statements.slice(1).some((s) => s.length > 0)) return "exactly one statement is allowed";
  const statement = nonEmpty[0] ?? [];
  const first = statement[0];
  if (first?.kind !== "word" || !STATEMENTS.has(first.text))
    return "only SELECT, SHOW, DESC and EXPLAIN statements are allowed";
  for (let i = 0; i < statement.length; i++) {
    const token = statement[i];
    if (token?.kind !== "word") continue;
    if (first.text === "SHOW" && SHOW_SYNTAX.has(token.text)) continue;
    if (REFUSED_WORDS.has(token.text)) return `${token.text} is not allowed in a read-only query`;
    if (VERBS_ALSO_FUNCTIONS.has(token.text) && statement[i + 1]?.text !== "(") {
      return `${token.text} is not allowed in a read-only query`;
    }
  }
  return undefined;
}

function tokenize(sql: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] ?? "";
    const next = sql[i + 1] ?? "";
    if (/\s/.test(c)) {
      i++;
    } else if (
      c === "#" ||
      (c === "-" && next === "-" && (i + 2 >= sql.length || /\s/.test(sql[i + 2] ?? "")))
    ) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end + 1;
    } else if (c === "/" && next === "*") {
      if (sql[i + 2] === "!" || (sql[i + 2] === "M" && sql[i + 3] === "!"))
        return "executable comments are not allowed";
      const end = sql.indexOf("*/", i + 2);
      if (end < 0) return "unterminated comment";
      i = end + 2;
    } else if (c === "'" || c === '"' || c === "`") {
      const end = quotedEnd(sql, i, c);
      if (end < 0) return "unterminated quoted text";
      tokens.push({ kind: c === "`" ? "identifier" : "string", text: sql.slice(i, end + 1) });
      i = end + 1;
    } else if (c === ";") {
      tokens.push({ kind: "semicolon", text: ";" });
      i++;
    } else if (/[A-Za-z0-9_$@]/.test(c) || c.charCodeAt(0) > 0x7f) {
      let end = i;
      while (end < sql.length && (/[A-Za-z0-9_$@.]/.test(sql[end] ?? "") || sql.charCodeAt(end) > 0x7f))
        end++;
      // `a.b` reads as words a and b; qualified names hide no keyword differently.
      for (const part of sql.slice(i, end).split("."))
        if (part) tokens.push({ kind: "word", text: part.toUpperCase() });
      i = end;
    } else {
      tokens.push({ kind: "punct", text: c });
      i++;
    }
  }
  return tokens;
}

/** The index of the closing quote; backslash escapes apply in strings, doubling in all three. */
function quotedEnd(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    const c = sql[i];
    if (c === "\\" && quote !== "`") {
      i++;
      continue;
    }
    if (c === quote) {
      if (sql[i + 1] === quote) {
        i++;
        continue;
      }
      return i;
    }
  }
  return -1;
}
