/**
 * `pmfx list --json` and the plain `pmfx list` table (and PM2's names for them) answered by the
 * launcher itself, before the CLI bundle is loaded: monitoring scripts poll the first, people
 * type the second all day, and loading and starting the full CLI is most of a command's time
 * (docs/architecture.md §12, docs/benchmarks.md). It asks the local daemon's socket for
 * `GET /api/processes` and prints the rows exactly as the CLI does: the same schema-ordered fields
 * with a two-space indent, or the same table (`renderProcessTable`, shared with the CLI). Anything
 * unusual — another argument, `PMFX_URL`, no daemon answering, a non-200 answer, unreadable JSON,
 * a row without the table's fields (a daemon of another version) — returns false without printing,
 * and the full CLI runs and does what it always does (start the daemon, report the error with its
 * exit code).
 */
import { renderProcessTable } from "./processTable"
import { localProcessRows } from "./localRows"
import type { ProcessSummary } from "../domain/ProcessSummary"

const ANSWER_TIMEOUT_MS = 2_000

/** How the launcher answers a listing: the rows as JSON, or the table. */
export type FastListing = "json" | "table"

/** `list` and PM2's names for it (src/cli/commandAliases.ts). */
const TABLE_WORDS: ReadonlySet<string> = new Set(["list", "ls", "l", "ps"])
/** PM2's names for `list --json`. */
const JSON_WORDS: ReadonlySet<string> = new Set(["jlist", "prettylist"])

/**
 * Which listing these arguments and environment are, when the launcher can answer it: one of
 * `list`, `ls`, `l`, `ps` alone (the table) or followed by `--json`, or PM2's `jlist` or
 * `prettylist` (the JSON); never with `PMFX_URL` (a remote daemon is the CLI's).
 */
export const fastListing = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): FastListing | null => {
  if ((env["PMFX_URL"] ?? "") !== "") return null
  const [word, option] = args
  if (word === undefined || args.length > 2) return null
  if (args.length === 2) return TABLE_WORDS.has(word) && option === "--json" ? "json" : null
  if (JSON_WORDS.has(word)) return "json"
  return TABLE_WORDS.has(word) ? "table" : null
}

const isInt = (value: unknown): value is number => Number.isInteger(value)

/**
 * Whether a row carries every field the table shows, with the schema's types (domain/ProcessSummary).
 * The CLI decodes rows with the schema; the launcher, without it, only renders rows it can read
 * the same way, and leaves any other answer to the CLI and its error.
 */
export const isTableRow = (row: unknown): row is ProcessSummary => {
  if (typeof row !== "object" || row === null) return false
  const r = row as Record<string, unknown>
  return (
    isInt(r["id"]) &&
    typeof r["name"] === "string" &&
    typeof r["namespace"] === "string" &&
    typeof r["status"] === "string" &&
    (r["pid"] === null || isInt(r["pid"])) &&
    (r["port"] === null || typeof r["port"] === "string") &&
    typeof r["cpu_usage"] === "number" &&
    isInt(r["memory_usage"]) &&
    typeof r["uptime"] === "string" &&
    isInt(r["restarts"]) &&
    typeof r["health_status"] === "string"
  )
}

/** Prints the listing and resolves true, or resolves false having printed nothing. */
export const fastList = async (listing: FastListing, env: NodeJS.ProcessEnv): Promise<boolean> => {
  const rows = await localProcessRows(env, ANSWER_TIMEOUT_MS)
  if (rows === null) return false
  if (listing === "json") {
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
    return true
  }
  if (!rows.every(isTableRow)) return false
  process.stdout.write(`${renderProcessTable(rows)}\n`)
  return true
}
