/** `--wait-ready` that ran out of time: the error, the state each instance was left in, and what to do. */
import { Console, Effect } from "effect"
import { errorMeta, type ReadyTimeout } from "../domain/errors"
import { CliExit, failWith, renderError } from "./output"

export const reportReadyTimeout = (
  error: ReadyTimeout,
  json: boolean,
  /** Whether an instance has restarted since the start (a crash loop can be caught `starting`). */
  restarted = false
): Effect.Effect<never, CliExit> => {
  if (json) return failWith(error, true)
  const states = Object.entries(error.details.states).map(([id, state]) => `id ${id} ${state}`)
  const name = error.details.process_id
  // An app that exits at once is not slow: waiting longer would not help.
  const exiting =
    restarted || Object.values(error.details.states).some((state) => state === "restarting" || state === "errored")
  const suggestion = exiting
    ? `it keeps exiting, and pmfx keeps restarting it (errored after max_restarts): see why with \`pmfx logs ${name} --lines 50\`, fix it, then \`pmfx restart ${name}\` (or \`pmfx delete ${name}\`)`
    : `the app is still running; see why with \`pmfx logs ${name}\` and \`pmfx list\`, or wait longer with --wait-timeout`
  return Console.error(
    [renderError(error), `  state: ${states.join(", ")}`, `  suggestion: ${suggestion}`].join("\n")
  ).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: errorMeta.READY_TIMEOUT.exitCode }))))
}
