/** `pmfx reset <id|name|namespace|all>`: zeroes restart counters (docs/cli.md). */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural, targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const resetCommand = Command.make("reset", { target: targetArg, json: jsonOption }, ({ target, json }) =>
  Effect.gen(function* () {
    const result = yield* withDaemon(json, (api) => api.processes.reset({ path: { id: target } }), { selector: target })
    if (json) return yield* printJson(result.processes)
    yield* Console.log(`${style.green(process.stdout)("reset")} the counters of ${plural(result.processes.length, "process", "processes")}\n${renderProcessTable(result.processes)}`)
  })
).pipe(Command.withDescription("Zero the restart counters (restarts, crashes, unstable exits in a row) of an app, id, namespace, or all"))
