/** `pmfx restart <id|name|namespace|all> [--port P]`: stops and starts the rows again. */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural, portOverrideOption, targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const restartCommand = Command.make("restart", { target: targetArg, port: portOverrideOption, json: jsonOption }, ({ target, port, json }) =>
  Effect.gen(function* () {
    const payload = Option.match(port, { onNone: () => ({}), onSome: (p) => ({ port: p }) })
    const result = yield* withDaemon(json, (api) => api.processes.restart({ path: { id: target }, payload }), { selector: target })
    if (json) return yield* printJson(result.processes)
    const on = Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` })
    yield* Console.log(`${style.green(process.stdout)("restarted")} ${plural(result.processes.length, "process", "processes")}${on}\n${renderProcessTable(result.processes)}`)
  })
).pipe(Command.withDescription("Restart processes by id, app name, namespace, or all; --port overrides the port for this run only"))
