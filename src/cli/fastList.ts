/**
 * `pmfx list --json` answered by the launcher itself, before the CLI bundle is loaded: monitoring
 * scripts poll it, and loading and starting the full CLI is most of a command's time (docs/architecture.md §12,
 * docs/benchmarks.md). It asks the local daemon's socket for `GET /api/processes` and prints the
 * rows exactly as `list --json` does (the same schema-ordered fields, two-space indent). Anything
 * unusual — another argument, `PMFX_URL`, no daemon answering, a non-200 answer, unreadable JSON —
 * returns false without printing, and the full CLI runs and does what it always does (start the
 * daemon, report the error with its exit code).
 */
import * as http from "node:http"
import { resolveHome, socketPathFor } from "../shared/homePaths"

const ANSWER_TIMEOUT_MS = 2_000

/** Whether these arguments and environment are the plain local `list --json` (or PM2's `jlist`). */
export const isFastList = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): boolean =>
  ((args.length === 2 && args[0] === "list" && args[1] === "--json") || (args.length === 1 && args[0] === "jlist")) &&
  (env["PMFX_URL"] ?? "") === ""

/** Prints the rows and resolves true, or resolves false having printed nothing. */
export const fastList = (env: NodeJS.ProcessEnv): Promise<boolean> =>
  new Promise((resolve) => {
    const socketPath = socketPathFor(
      resolveHome({ PMFX_HOME: env["PMFX_HOME"], XDG_DATA_HOME: env["XDG_DATA_HOME"], HOME: env["HOME"] })
    )
    const request = http.request(
      { socketPath, path: "/api/processes", method: "GET", headers: { host: "pmfx" }, agent: false },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", () => resolve(false))
        response.on("end", () => {
          if (response.statusCode !== 200) return resolve(false)
          let rows: unknown
          try {
            rows = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            return resolve(false)
          }
          if (!Array.isArray(rows)) return resolve(false)
          process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`)
          resolve(true)
        })
      }
    )
    request.setTimeout(ANSWER_TIMEOUT_MS, () => request.destroy())
    request.on("error", () => resolve(false))
    request.end()
  })
