/**
 * Node's HTTP server enforces `headersTimeout` and `requestTimeout` on a timer that ticks every
 * `connectionsCheckingInterval` for as long as the server listens, connections or not. In an idle
 * daemon that tick was a third of its CPU: ~0.7 ms a second here, 0.07 % of a core for a timer with
 * nothing to check (docs/benchmarks.md, "Idle wakeups"). This pauses Node's own timer while the
 * server has no connection and starts it again with the first one, so the timeouts are enforced
 * exactly as before whenever there is something to enforce them on.
 *
 * Node keeps the timer on the server under a symbol of its own (Node 18 to 24 alike); its callback
 * is the timer's `_onTimeout`. When either cannot be found (another Node), nothing is paused and
 * Node's timer runs as it always did.
 */
import type * as http from "node:http"

const TIMER_SYMBOL_DESCRIPTION = "http.server.connectionsCheckingInterval"

interface NodeTimer {
  readonly _onTimeout: () => void
}

const isNodeTimer = (value: unknown): value is NodeTimer & NodeJS.Timeout =>
  typeof value === "object" && value !== null && typeof (value as { _onTimeout?: unknown })._onTimeout === "function"

export interface ConnectionsCheck {
  /** A connection was accepted: the check runs (again). */
  readonly connected: () => void
  /** A connection closed; `open` connections remain: with none, the check pauses. */
  readonly disconnected: (open: number) => void
}

/** Pauses `server`'s connections check while it has no connection; call the two hooks as they come and go. */
export const connectionsCheckWhileConnected = (server: http.Server, intervalMs: number): ConnectionsCheck => {
  // Node's timer, read through its symbol (an I/O boundary with Node's internals).
  const slots = server as unknown as Record<symbol, unknown>
  let key: symbol | undefined
  let tick: (() => void) | undefined
  let paused = false
  let closed = false

  const pause = () => {
    if (paused || closed) return
    key ??= Object.getOwnPropertySymbols(server).find((symbol) => symbol.description === TIMER_SYMBOL_DESCRIPTION)
    const timer = key === undefined ? undefined : slots[key]
    if (!isNodeTimer(timer)) return
    tick = timer._onTimeout
    clearInterval(timer)
    paused = true
  }

  // Node starts its timer on 'listening' (a listener added when the server was made, so before this one).
  server.on("listening", pause)
  // server.close() clears whatever timer the symbol holds: ours, once resumed.
  server.on("close", () => {
    closed = true
  })

  return {
    connected: () => {
      if (!paused || closed || key === undefined || tick === undefined) return
      paused = false
      slots[key] = setInterval(tick, intervalMs).unref()
    },
    disconnected: (open) => {
      if (open === 0 && server.listening) pause()
    }
  }
}
