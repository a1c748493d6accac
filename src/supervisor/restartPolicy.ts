/**
 * What happens when a process exits on its own (docs/configuration.md §3.5): restart after a
 * delay, or settle in `stopped` / `errored`. As in PM2, `min_uptime` only matters here: an exit
 * less than `min_uptime` after the process started is *unstable*. Unstable exits add an
 * exponential backoff (from `exp_backoff_restart_delay`, doubling, at most 15 s) and after
 * `max_restarts` of them in a row the app is `errored`; an exit after `min_uptime` resets the count.
 */
import type { AppDefinition } from "../domain/AppDefinition"
import { formatDuration } from "../domain/Duration"

export const MAX_BACKOFF_MS = 15_000

export type ExitDecision =
  | { readonly _tag: "Restart"; readonly delayMs: number; readonly unstableRestarts: number }
  | {
      readonly _tag: "Settle"
      readonly status: "stopped" | "errored"
      readonly unstableRestarts: number
      readonly reason: string
    }

export const backoffDelay = (initialMs: number, unstableRestarts: number): number =>
  unstableRestarts <= 0 ? 0 : Math.min(MAX_BACKOFF_MS, initialMs * 2 ** (unstableRestarts - 1))

/** True when a run of `uptimeMs` was too short to count as stable (strictly less than `min_uptime`). */
export const isUnstableRun = (minUptimeMs: number, uptimeMs: number): boolean => uptimeMs < minUptimeMs

/** The unstable count after a run of `uptimeMs` ended: one more when it was short, else reset. */
export const unstableAfterRun = (minUptimeMs: number, uptimeMs: number, unstableRestarts: number): number =>
  isUnstableRun(minUptimeMs, uptimeMs) ? unstableRestarts + 1 : 0

export const decideAfterExit = (
  app: Pick<
    AppDefinition,
    "autorestart" | "max_restarts" | "min_uptime" | "restart_delay" | "exp_backoff_restart_delay" | "stop_exit_codes"
  >,
  exit: { readonly code: number | null; readonly signal: string | null; readonly uptimeMs: number },
  unstableRestarts: number
): ExitDecision => {
  const clean = exit.code === 0 && exit.signal === null
  const unstable = unstableAfterRun(app.min_uptime, exit.uptimeMs, unstableRestarts)
  // PM2's stop_exit_codes: the app says "I am done" with one of these codes; it is not restarted.
  if (exit.signal === null && exit.code !== null && app.stop_exit_codes.includes(exit.code)) {
    return {
      _tag: "Settle",
      status: "stopped",
      unstableRestarts: unstable,
      reason: `exit code ${exit.code} is in stop_exit_codes`
    }
  }
  if (!app.autorestart) {
    return {
      _tag: "Settle",
      status: clean ? "stopped" : "errored",
      unstableRestarts: unstable,
      reason: "autorestart is off"
    }
  }
  if (unstable > app.max_restarts) {
    return {
      _tag: "Settle",
      status: "errored",
      unstableRestarts: unstable,
      reason: `exited within min_uptime (${formatDuration(app.min_uptime)}) of starting ${unstable} times in a row (max_restarts ${app.max_restarts})`
    }
  }
  return {
    _tag: "Restart",
    delayMs: app.restart_delay + backoffDelay(app.exp_backoff_restart_delay, unstable),
    unstableRestarts: unstable
  }
}
