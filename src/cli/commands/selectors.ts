/**
 * Several selectors in one command, as PM2 users type them: `pmfx stop api worker`,
 * `pmfx restart 0 3 billing` (docs/cli.md, "Several selectors").
 *
 * Each selector goes to the daemon in its own request, in the order given (a repeated selector
 * once). When one fails (an unknown name, most often), the others are still acted on — as PM2 does —
 * and the failures are reported at the end: each error on stderr, then one line naming the failed
 * selectors. The exit code is 9 (partial) when something was done, else the first failure's code.
 * With one selector nothing changes: its error and exit code are those of the daemon's answer.
 *
 * `--json`: when every selector succeeds, the command's usual document (the rows of all of them).
 * When one of several fails, the wire error shape `{success:false, error:{code, message, details}}`
 * with `details.failed` (selector, code, message, suggestion of each) and, beside `error`, `done`:
 * the usual document of what was acted on.
 */
import { Args } from "@effect/cli"
import { Console, Effect, Either } from "effect"
import { type ExitCode, errorMeta, type PmfxError } from "../../domain/errors"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { CliExit, failWith, printJson, renderError } from "../output"
import { renderProcessTable } from "../processTable"

/** One or more `{id}`s as docs/architecture.md §4 resolves each: an id, `all`, an app name, or a namespace. */
export const targetsArg = Args.text({ name: "id|name|namespace|all" }).pipe(
  Args.withDescription(
    "process ids, app names (all their instances), namespaces, or all; several are acted on one after the other"
  ),
  Args.atLeast(1)
)

export interface SelectorOutcome<A> {
  readonly selectors: ReadonlyArray<string>
  readonly done: ReadonlyArray<{ readonly selector: string; readonly value: A }>
  readonly failed: ReadonlyArray<{ readonly selector: string; readonly error: PmfxError }>
}

/** The selectors in order, each once. */
export const distinctSelectors = (selectors: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(selectors)]

/** Runs `act` for each selector in turn, keeping both the answers and the structured errors. */
export const actOnEach = <A, R>(
  selectors: ReadonlyArray<string>,
  act: (selector: string) => Effect.Effect<Either.Either<A, PmfxError>, CliExit, R>
): Effect.Effect<SelectorOutcome<A>, CliExit, R> =>
  Effect.gen(function* () {
    const distinct = distinctSelectors(selectors)
    const done: Array<{ selector: string; value: A }> = []
    const failed: Array<{ selector: string; error: PmfxError }> = []
    for (const selector of distinct) {
      const answer = yield* act(selector)
      if (Either.isRight(answer)) done.push({ selector, value: answer.right })
      else failed.push({ selector, error: answer.left })
    }
    return { selectors: distinct, done, failed }
  })

/** Rows of several answers, each process once (the latest state of a row acted on twice). */
export const mergeRows = <Row extends { readonly id: number }>(
  lists: ReadonlyArray<ReadonlyArray<Row>>
): ReadonlyArray<Row> => {
  const byId = new Map<number, Row>()
  for (const rows of lists) for (const row of rows) byId.set(row.id, row)
  return [...byId.values()]
}

const suggestionOf = (error: PmfxError): string | undefined => {
  const details = error.details as Record<string, unknown>
  return typeof details.suggestion === "string" ? details.suggestion : undefined
}

/**
 * Prints what was done (`printDone`, the command's usual output) and ends with the failures, as
 * the module comment says. `verb` is the past tense of the action ("stopped").
 */
export const reportOutcome = <A>(
  outcome: SelectorOutcome<A>,
  options: {
    readonly json: boolean
    readonly verb: string
    readonly printDone: (values: ReadonlyArray<A>) => Effect.Effect<void>
    readonly doneJson: (values: ReadonlyArray<A>) => unknown
  }
): Effect.Effect<void, CliExit> =>
  Effect.gen(function* () {
    const values = outcome.done.map((d) => d.value)
    const [first] = outcome.failed
    if (first === undefined) return yield* options.printDone(values)
    if (outcome.selectors.length === 1) return yield* failWith(first.error, options.json)

    const names = outcome.failed.map((f) => JSON.stringify(f.selector)).join(", ")
    const allNotFound = outcome.failed.every((f) => f.error._tag === "PROCESS_NOT_FOUND")
    const what = allNotFound ? `no process with id, name or namespace ${names}` : `${names} failed`
    const rest = outcome.done.length > 0 ? `; the others were ${options.verb}` : "; nothing was done"
    const message = `${outcome.failed.length} of ${outcome.selectors.length} selectors failed: ${what}${rest}`
    const suggestion = allNotFound
      ? "check the names with `pmfx list` (ids, names and namespaces), then run the command again for those"
      : (suggestionOf(first.error) ?? "see each error above, then run the command again for those selectors")
    const code: number =
      outcome.done.length > 0 ? (9 satisfies (typeof ExitCode)["partial"]) : errorMeta[first.error._tag].exitCode

    if (options.json) {
      yield* printJson({
        success: false,
        error: {
          code: first.error._tag,
          message,
          details: {
            process_id: outcome.failed.map((f) => f.selector).join(","),
            failed: outcome.failed.map((f) => ({
              selector: f.selector,
              code: f.error._tag,
              message: f.error.message,
              suggestion: suggestionOf(f.error) ?? null
            })),
            suggestion
          }
        },
        done: options.doneJson(values)
      })
    } else {
      if (outcome.done.length > 0) yield* options.printDone(values)
      for (const f of outcome.failed) yield* Console.error(renderError(f.error))
      yield* Console.error(`pmfx: ${message}\n  suggestion: ${suggestion}`)
    }
    return yield* new CliExit({ code })
  })

/**
 * `reportOutcome` for an action whose answers carry the rows it touched (`stop`, `restart`,
 * `reset`): their merged rows as JSON, or `headline(rows)` above the process table.
 */
export const reportRows = <A extends { readonly processes: ReadonlyArray<ProcessSummary> }>(
  outcome: SelectorOutcome<A>,
  json: boolean,
  verb: string,
  headline: (rows: ReadonlyArray<ProcessSummary>) => string
): Effect.Effect<void, CliExit> =>
  reportOutcome(outcome, {
    json,
    verb,
    doneJson: (results) => mergeRows(results.map((r) => r.processes)),
    printDone: (results) => {
      const rows = mergeRows(results.map((r) => r.processes))
      return json ? printJson(rows) : Console.log(`${headline(rows)}\n${renderProcessTable(rows)}`)
    }
  })
