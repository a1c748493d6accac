/**
 * The launcher's one request before the CLI bundle is loaded: `GET /api/processes` on the local
 * daemon's socket (the home from PMFX_HOME / XDG_DATA_HOME / HOME, as the CLI resolves it). Used by
 * the fast `list --json` (fastList.ts) and by shell completion (completionNames.ts). Never starts a
 * daemon: no answer within `timeoutMs`, a failure, a non-200 answer or anything but a JSON array
 * resolves null.
 */
import { resolveHome, socketPathFor } from "../shared/homePaths"
import { socketRequest } from "./socketRequest"

export const localProcessRows = async (
  env: NodeJS.ProcessEnv,
  timeoutMs: number
): Promise<ReadonlyArray<unknown> | null> => {
  const socketPath = socketPathFor(resolveHome(env))
  const answer = await socketRequest(socketPath, "GET", "/api/processes", { idleTimeoutMs: timeoutMs })
  if (answer === null || answer.status !== 200) return null
  let rows: unknown
  try {
    rows = JSON.parse(answer.body.toString("utf8"))
  } catch {
    return null
  }
  return Array.isArray(rows) ? rows : null
}
