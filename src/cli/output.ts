/**
 * How the CLI speaks: data on stdout, errors on stderr with code, message and suggestion, and the
 * exit codes of docs/architecture.md §10. A command that has already told the user what went wrong ends with
 * `CliExit` to set the exit code without printing again.
 */
import { Console, Data, Effect } from "effect"
import type { PmfxError } from "../domain/errors"
import { errorMeta } from "../domain/errors"
import { toWire } from "../domain/ErrorWire"
import { renderError } from "./errorText"

export class CliExit extends Data.TaggedError("CliExit")<{ readonly code: number }> {}

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

export { renderError } from "./errorText"

/**
 * Reports a structured error the way the user asked (`--json` prints the API's wire shape on
 * stdout) and ends the command with its exit code.
 */
export const failWith = (error: PmfxError, json: boolean): Effect.Effect<never, CliExit> =>
  (json ? printJson(toWire(error)) : Console.error(renderError(error))).pipe(
    Effect.zipRight(Effect.fail(new CliExit({ code: errorMeta[error._tag].exitCode })))
  )
