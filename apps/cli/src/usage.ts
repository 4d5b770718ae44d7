export const USAGE = `pablo: governed tool execution for LLM agents

usage:
  pablo run "TASK" [--model PROVIDER:NAME] [--record FILE] [--seed DIR] [--export-changes DIR]
                                                one agent task over the governed catalog (--seed: a
                                                virtual sandbox's starting files; --export-changes:
                                                write what it changed)
  pablo tools [--explain] [--json]              the effective catalog, and why tools are excluded
  pablo tools --delegate NAME                   a Task delegate's effective authority
  pablo call TOOL --args JSON [--dry-run] [--json]
                                                one call through the full pipeline
  pablo policy check [--json]                   lint the configuration
  pablo audit show [--file F] [--session ID] [--last N] [--json]
                                                the audit log as a timeline
  pablo audit verify [--file F] [--json]        walk the audit hash chain; exit 1 naming the first bad record
  pablo audit replay --policy F | --config F [--session ID] [--since T] [--json]
                                                what a new policy would have decided about recorded calls
  pablo audit view [--session ID] [--port N] [--out FILE]
                                                the timeline page (127.0.0.1, or a static file)
  pablo review list | pablo review rollback ID  review snapshots of file changes, and rollback
  pablo skills list | show NAME | check DIR     Agent Skills in the configured roots; validate a skill
  pablo mcp serve [--http PORT]                 the governed catalog as an MCP server (stdio or 127.0.0.1)
  pablo mcp login NAME | pablo mcp logout NAME authorize an auth = "oauth" server (OAuth); remove its tokens
  pablo acp [--model PROVIDER:NAME]             an Agent Client Protocol agent over stdio, for editors
  pablo a2a serve [--port PORT] [--model PROVIDER:NAME]
                                                this agent as an A2A 1.0 server on 127.0.0.1
  pablo actions keygen PREFIX | sign CATALOG --key FILE | verify|list|check [CATALOG... --trusted FILE]
                                                signed action catalogs (seed 004)
  pablo plugin scaffold NAME | check DIR | pack DIR
                                                write, validate and package a plugin

options for every command:
  --config FILE          deployment.toml (default: the cli preset)
  --bind NAME=DIR        a named directory the configuration may refer to (repeatable)
  --policy FILE          a static JSON policy layer
  --workspace DIR        the workspace root (default: the current directory)
  --permission MODE      ask | accept-edits | auto | read-only (never looser than the deployment)
  --mode MODE            agent | plan | goal
  --allow-write          allow fs.write and fs.edit
  --no-shell             deny processes
  --no-filesystem        deny filesystem reads and writes
  --json                 machine-readable output

exit codes: 0 ok, 1 the tool or task failed, 2 usage or configuration error, 3 denied, 130 cancelled
`;
