/** `pmfx flush [id|name|namespace|all]...` and `pmfx reloadLogs` (docs/cli.md). */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { tryDaemon, withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { style } from "../style"
import { jsonOption } from "./configOptions"
import { actOnEach, reportOutcome } from "./selectors"

const optionalTargets = Args.text({ name: "id|name|namespace|all" }).pipe(
  Args.withDescription("whose log files to empty (default: every app's); several are flushed one after the other"),
  Args.repeated
)

interface Flushed {
  readonly message: string
  readonly files: ReadonlyArray<string>
}

const printFlushed = (json: boolean) => (result: Flushed) =>
  json
    ? printJson(result)
    : Console.log(`${style.green(process.stdout)("flushed")} ${result.message.replace(/^flushed /, "")}`)

/** Several answers as one: each file once, counted here. */
const merged = (results: ReadonlyArray<Flushed>) => {
  const files = [...new Set(results.flatMap((r) => r.files))]
  return {
    success: true as const,
    message: `flushed ${files.length} log ${files.length === 1 ? "file" : "files"}`,
    files
  }
}

export const flushCommand = Command.make("flush", { targets: optionalTargets, json: jsonOption }, ({ targets, json }) =>
  Effect.gen(function* () {
    if (targets.length === 0)
      return yield* printFlushed(json)(yield* withDaemon(json, (api) => api.processes.flushAll()))
    const outcome = yield* actOnEach(targets, (id) =>
      tryDaemon(json, (api) => api.processes.flush({ path: { id } }), { selector: id })
    )
    yield* reportOutcome(outcome, {
      json,
      verb: "flushed",
      doneJson: merged,
      // One answer keeps the daemon's own message.
      printDone: (results) =>
        printFlushed(json)(results.length === 1 && results[0] !== undefined ? results[0] : merged(results))
    })
  })
).pipe(
  Command.withDescription(
    "Empty the log files of every app, or of apps, ids or namespaces (running apps keep logging into them)"
  )
)

export const reloadLogsCommand = Command.make("reloadLogs", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    const result = yield* withDaemon(json, (api) => api.processes.reloadLogs())
    if (json) return yield* printJson(result)
    yield* Console.log(`${style.green(process.stdout)("reopened")} ${result.message.replace(/^reopened /, "")}`)
    for (const failed of result.failed) yield* Console.error(`  ${failed.path}: ${failed.reason}`)
  })
).pipe(Command.withDescription("Reopen every log file at its path, after an outside logrotate moved the files away"))
