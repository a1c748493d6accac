/**
 * What happens when a process exits on its own (DESIGN §4): restart after a delay, or settle in
 * `stopped` / `errored`. An exit before the process became online is *unstable*: unstable exits
 * add an exponential backoff (from `exp_backoff_restart_delay`, doubling, at most 15 s) and after
 * `max_restarts` of them in a row the app is `errored`.
 */
import type { AppDefinition } from "../domain/AppDefinition"

export const MAX_BACKOFF_MS = 15_000

export type ExitDecision =
  | { readonly _tag: "Restart"; readonly delayMs: number; readonly unstableRestarts: number }
  | { readonly _tag: "Settle"; readonly status: "stopped" | "errored"; readonly unstableRestarts: number; readonly reason: string }

export const backoffDelay = (initialMs: number, unstableRestarts: number): number =>
  unstableRestarts <= 0 ? 0 : Math.min(MAX_BACKOFF_MS, initialMs * 2 ** (unstableRestarts - 1))

export const decideAfterExit = (
  app: Pick<AppDefinition, "autorestart" | "max_restarts" | "restart_delay" | "exp_backoff_restart_delay">,
  exit: { readonly code: number | null; readonly signal: string | null; readonly wasOnline: boolean },
  unstableRestarts: number
): ExitDecision => {
  const clean = exit.code === 0 && exit.signal === null
  const unstable = exit.wasOnline ? 0 : unstableRestarts + 1
  if (!app.autorestart) {
    return { _tag: "Settle", status: clean ? "stopped" : "errored", unstableRestarts: unstable, reason: "autorestart is off" }
  }
  if (unstable > app.max_restarts) {
    return {
      _tag: "Settle",
      status: "errored",
      unstableRestarts: unstable,
      reason: `exited before becoming online ${unstable} times in a row (max_restarts ${app.max_restarts})`
    }
  }
  return { _tag: "Restart", delayMs: app.restart_delay + backoffDelay(app.exp_backoff_restart_delay, unstable), unstableRestarts: unstable }
}
