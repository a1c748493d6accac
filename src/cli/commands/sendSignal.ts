/** `pmfx sendSignal <signal> <id|name|namespace|all>` (docs/cli.md). */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

const signalArg = Args.text({ name: "signal" }).pipe(
  Args.withDescription("a signal name (SIGUSR2, USR2) or number (12)")
)

export const sendSignalCommand = Command.make(
  "sendSignal",
  { signal: signalArg, target: targetArg, json: jsonOption },
  ({ signal, target, json }) =>
    Effect.gen(function* () {
      // The daemon checks the signal (BAD_REQUEST, field signal): one rule for the CLI and HTTP.
      const result = yield* withDaemon(
        json,
        (api) => api.processes.signal({ path: { id: target }, payload: { signal } }),
        { selector: target }
      )
      if (json) return yield* printJson(result)
      yield* Console.log(
        `${style.green(process.stdout)("sent")} ${result.message.replace(/^sent /, "")}\n${renderProcessTable(result.processes)}`
      )
    })
).pipe(
  Command.withDescription("Send a signal to the process of every running instance of an app, id, namespace, or all")
)
