/**
 * Parts of `GET /api/processes/{id}` (ProcessDetail) that say where an app came from and how it
 * behaves when its process ends or its files change: the ecosystem file, autorestart, watch, and
 * the time of the last exit (docs/api.md). Kept out of ProcessManager.ts, which only spreads them in.
 */
import type { AppDefinition } from "../domain/AppDefinition"

export const definitionSource = (app: AppDefinition) => ({
  config_file: app.config_file,
  autorestart: app.autorestart,
  watch: { enabled: app.watch, paths: app.watch ? app.watch_paths : [], ignore: app.ignore_watch }
})

/** The port a row is listed with: pmfx's own, else a valid `PORT` of the app's env (ProcessSummary). */
export const listedPort = (app: AppDefinition, own: number | null, instance: number): string | null => {
  if (own !== null) return String(own)
  if (app.port !== null) return null
  const fromEnv = app.env.PORT
  if (fromEnv === undefined || !/^\d{1,5}$/.test(fromEnv)) return null
  // PM2's `increment_var: "PORT"` gives instance i the port PORT + i.
  const port = Number(fromEnv) + (app.increment_var === "PORT" ? instance : 0)
  return port >= 1 && port <= 65535 ? String(port) : null
}

export const lastExitOf = (
  exit: { readonly code: number | null; readonly signal: string | null; readonly at: number } | null
) => (exit === null ? null : { code: exit.code, signal: exit.signal, at: new Date(exit.at).toISOString() })
