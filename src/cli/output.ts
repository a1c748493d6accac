/**
 * How the CLI speaks: data on stdout, errors on stderr with code, message and suggestion, and the
 * exit codes of docs/architecture.md §10. A command that has already told the user what went wrong ends with
 * `CliExit` to set the exit code without printing again.
 */
import { Console, Data, Effect } from "effect"
import type { PmfxError } from "../domain/errors"
import { errorMeta } from "../domain/errors"
import { toWire } from "../domain/ErrorWire"
import { style } from "./style"

export class CliExit extends Data.TaggedError("CliExit")<{ readonly code: number }> {}

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** The human form of a structured error, for stderr. */
export const renderError = (error: PmfxError): string => {
  const err = process.stderr
  const lines = [`${style.red(err)(style.bold(err)(error._tag))} ${error.message}`]
  if (error._tag === "INVALID_CONFIG" && error.details.problems !== undefined && error.details.problems.length > 0) {
    for (const problem of error.details.problems) {
      const value = problem.value === null || problem.value === undefined ? "" : ` = ${JSON.stringify(problem.value)}`
      lines.push(`  ${style.bold(err)(problem.field || "(file)")}${style.dim(err)(value)}`)
      lines.push(`    ${problem.message}`)
      lines.push(`    ${style.cyan(err)("suggestion:")} ${problem.suggestion}`)
    }
    return lines.join("\n")
  }
  const details = error.details as Record<string, unknown>
  if (error._tag === "CONFIG_PARSE_ERROR") {
    const { file, line, column } = error.details
    lines.push(`  at ${file}${line > 0 ? `:${line}` : ""}${column === undefined ? "" : `:${column}`}`)
  }
  if (typeof details.suggestion === "string") lines.push(`  ${style.cyan(err)("suggestion:")} ${details.suggestion}`)
  return lines.join("\n")
}

/**
 * Reports a structured error the way the user asked (`--json` prints the API's wire shape on
 * stdout) and ends the command with its exit code.
 */
export const failWith = (error: PmfxError, json: boolean): Effect.Effect<never, CliExit> =>
  (json ? printJson(toWire(error)) : Console.error(renderError(error))).pipe(
    Effect.zipRight(Effect.fail(new CliExit({ code: errorMeta[error._tag].exitCode })))
  )
