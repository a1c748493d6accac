/**
 * `pmfx list --json` answered by the launcher itself, before the CLI bundle is loaded: monitoring
 * scripts poll it, and loading and starting the full CLI is most of a command's time (docs/architecture.md §12,
 * docs/benchmarks.md). It asks the local daemon's socket for `GET /api/processes` and prints the
 * rows exactly as `list --json` does (the same schema-ordered fields, two-space indent). Anything
 * unusual — another argument, `PMFX_URL`, no daemon answering, a non-200 answer, unreadable JSON —
 * returns false without printing, and the full CLI runs and does what it always does (start the
 * daemon, report the error with its exit code).
 */
import { localProcessRows } from "./localRows"

const ANSWER_TIMEOUT_MS = 2_000

/** Whether these arguments and environment are the plain local `list --json` (or PM2's `jlist`). */
export const isFastList = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): boolean =>
  ((args.length === 2 && args[0] === "list" && args[1] === "--json") || (args.length === 1 && args[0] === "jlist")) &&
  (env["PMFX_URL"] ?? "") === ""

/** Prints the rows and resolves true, or resolves false having printed nothing. */
export const fastList = async (env: NodeJS.ProcessEnv): Promise<boolean> => {
  const rows = await localProcessRows(env, ANSWER_TIMEOUT_MS)
  if (rows === null) return false
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
  return true
}
