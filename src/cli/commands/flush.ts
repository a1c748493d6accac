/** `pmfx flush [id|name|namespace|all]` and `pmfx reloadLogs` (docs/cli.md). */
import { Args, Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { style } from "../style"
import { jsonOption } from "./configOptions"

const optionalTarget = Args.text({ name: "id|name|namespace|all" }).pipe(
  Args.withDescription("whose log files to empty (default: every app's)"),
  Args.optional
)

export const flushCommand = Command.make("flush", { target: optionalTarget, json: jsonOption }, ({ target, json }) =>
  Effect.gen(function* () {
    const result = yield* Option.match(target, {
      onNone: () => withDaemon(json, (api) => api.processes.flushAll()),
      onSome: (id) => withDaemon(json, (api) => api.processes.flush({ path: { id } }), { selector: id })
    })
    if (json) return yield* printJson(result)
    yield* Console.log(`${style.green(process.stdout)("flushed")} ${result.message.replace(/^flushed /, "")}`)
  })
).pipe(Command.withDescription("Empty the log files of every app, or of one app, id or namespace (running apps keep logging into them)"))

export const reloadLogsCommand = Command.make("reloadLogs", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    const result = yield* withDaemon(json, (api) => api.processes.reloadLogs())
    if (json) return yield* printJson(result)
    yield* Console.log(`${style.green(process.stdout)("reopened")} ${result.message.replace(/^reopened /, "")}`)
    for (const failed of result.failed) yield* Console.error(`  ${failed.path}: ${failed.reason}`)
  })
).pipe(Command.withDescription("Reopen every log file at its path, after an outside logrotate moved the files away"))
