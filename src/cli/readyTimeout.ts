/** `--wait-ready` that ran out of time: the error, the state each instance was left in, and what to do. */
import { Console, Effect } from "effect"
import { errorMeta, type ReadyTimeout } from "../domain/errors"
import { CliExit, failWith, renderError } from "./output"

export const reportReadyTimeout = (error: ReadyTimeout, json: boolean): Effect.Effect<never, CliExit> => {
  if (json) return failWith(error, true)
  const states = Object.entries(error.details.states).map(([id, state]) => `id ${id} ${state}`)
  const name = error.details.process_id
  return Console.error(
    [
      renderError(error),
      `  state: ${states.join(", ")}`,
      `  suggestion: the app is still running; see why with \`pmfx logs ${name}\` and \`pmfx list\`, or wait longer with --wait-timeout`
    ].join("\n")
  ).pipe(Effect.zipRight(Effect.fail(new CliExit({ code: errorMeta.READY_TIMEOUT.exitCode }))))
}
