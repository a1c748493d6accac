/**
 * The launcher's one request before the CLI bundle is loaded: `GET /api/processes` on the local
 * daemon's socket (the home from PMFX_HOME / XDG_DATA_HOME / HOME, as the CLI resolves it). Used by
 * the fast `list --json` (fastList.ts) and by shell completion (completionNames.ts). Never starts a
 * daemon: no answer within `timeoutMs`, a failure, a non-200 answer or anything but a JSON array
 * resolves null.
 */
import * as http from "node:http"
import * as net from "node:net"
import { resolveHome, socketPathFor } from "../shared/homePaths"

export const localProcessRows = (env: NodeJS.ProcessEnv, timeoutMs: number): Promise<ReadonlyArray<unknown> | null> =>
  new Promise((resolve) => {
    const socketPath = socketPathFor(
      resolveHome({ PMFX_HOME: env["PMFX_HOME"], XDG_DATA_HOME: env["XDG_DATA_HOME"], HOME: env["HOME"] })
    )
    const request = http.request(
      {
        // A connection of its own, without an agent (see socketHttpClient.ts for why).
        createConnection: () => net.createConnection(socketPath),
        path: "/api/processes",
        method: "GET",
        headers: { host: "pmfx" }
      },
      (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("error", () => resolve(null))
        response.on("end", () => {
          if (response.statusCode !== 200) return resolve(null)
          let rows: unknown
          try {
            rows = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          } catch {
            return resolve(null)
          }
          resolve(Array.isArray(rows) ? rows : null)
        })
      }
    )
    request.setTimeout(timeoutMs, () => request.destroy())
    request.on("error", () => resolve(null))
    request.end()
  })
