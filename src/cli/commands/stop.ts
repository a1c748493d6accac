/** `pmfx stop <id|name|namespace|all>`: stops the rows (idempotent); they keep their definitions. */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural, targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const stopCommand = Command.make("stop", { target: targetArg, json: jsonOption }, ({ target, json }) =>
  Effect.gen(function* () {
    const result = yield* withDaemon(json, (api) => api.processes.stop({ path: { id: target } }), { selector: target })
    if (json) return yield* printJson(result.processes)
    yield* Console.log(`${style.green(process.stdout)("stopped")} ${plural(result.processes.length, "process", "processes")}\n${renderProcessTable(result.processes)}`)
  })
).pipe(Command.withDescription("Stop processes by id, app name, namespace, or all (they stay listed until deleted)"))
