/**
 * Which rows `pmfx kill` holds back (docs/cli.md, "pmfx kill"): kill stops every app and the next
 * daemons keep them stopped until `pmfx resurrect`. But an app the user starts after the kill
 * (`pmfx kill`, then `pmfx start app.js`: a PM2 habit) is wanted running, and must come back after
 * a daemon restart or a reboot like any other. Kill stopped every process, so a row saved with a
 * process has been started since: only the rows saved without one are held.
 */
import type { EngineSnapshot } from "../supervisor/EngineSnapshot"

export const heldByKill = (snapshot: EngineSnapshot, killed: boolean): ReadonlySet<number> =>
  new Set(killed ? snapshot.apps.flatMap((app) => app.rows.filter((row) => row.pid === null).map((row) => row.id)) : [])
