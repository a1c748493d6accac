/**
 * Which signal starts an instance's stop (docs/configuration.md, `kill_signal`): the app's own,
 * or pmfx's default — SIGTERM, and SIGINT for a cluster worker (what PM2 sends a worker, and what
 * Node's cluster primary forwards on Ctrl-C). SIGKILL follows after `kill_timeout` either way.
 */
import type { AppDefinition } from "./AppDefinition"

export const DEFAULT_KILL_SIGNAL = "SIGTERM"
export const DEFAULT_CLUSTER_WORKER_KILL_SIGNAL = "SIGINT"

export const killSignalOf = (app: Pick<AppDefinition, "kill_signal" | "exec_mode">): NodeJS.Signals =>
  (app.kill_signal ??
    (app.exec_mode === "cluster" ? DEFAULT_CLUSTER_WORKER_KILL_SIGNAL : DEFAULT_KILL_SIGNAL)) as NodeJS.Signals
