/** `pmfx scale <app> <n|+n|-n>`: changes an app's instance count live (docs/cli.md). */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { jsonOption } from "./configOptions"

const appArg = Args.text({ name: "app" }).pipe(Args.withDescription("the app's name"))
const countArg = Args.text({ name: "n|+n|-n" }).pipe(
  Args.withDescription("the new instance count (4), or how many to add (+2) or remove (-1)")
)

export const scaleCommand = Command.make(
  "scale",
  { app: appArg, count: countArg, json: jsonOption },
  ({ app, count, json }) =>
    Effect.gen(function* () {
      // The daemon checks the count (BAD_REQUEST, field instances): the same rule for the CLI and HTTP.
      const result = yield* withDaemon(
        json,
        (api) => api.processes.scale({ path: { id: app }, payload: { instances: count } }),
        { selector: app }
      )
      if (json) return yield* printJson(result)
      yield* Console.log(
        `${style.green(process.stdout)("scaled")} ${result.message}\n${renderProcessTable(result.processes)}`
      )
    })
).pipe(
  Command.withDescription(
    "Change an app's instance count live: new instances take the next ports, removed ones stop highest index first"
  )
)
