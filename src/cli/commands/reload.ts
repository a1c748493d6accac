/**
 * `pmfx reload <id|name|namespace|all> [--port P]`: replaces the instances one at a time so n-1
 * keep serving (docs/architecture.md §4). An app with a single instance is restarted instead, and the output
 * says so. `--json` prints `{processes, restarted_instead}` (the one action whose result carries
 * more than the rows).
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural, portOverrideOption, targetArg } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const reloadCommand = Command.make("reload", { target: targetArg, port: portOverrideOption, json: jsonOption }, ({ target, port, json }) =>
  Effect.gen(function* () {
    const payload = Option.match(port, { onNone: () => ({}), onSome: (p) => ({ port: p }) })
    const result = yield* withDaemon(json, (api) => api.processes.reload({ path: { id: target }, payload }), { selector: target })
    if (json) return yield* printJson({ processes: result.processes, restarted_instead: result.restarted_instead })
    const out = process.stdout
    const on = Option.match(port, { onNone: () => "", onSome: (p) => ` on port ${p} (this run only)` })
    const lines = [`${style.green(out)("reloaded")} ${plural(result.processes.length, "process", "processes")}${on}`]
    for (const name of result.restarted_instead) lines.push(`${style.yellow(out)(name)} has one instance: restarted instead of reloaded`)
    lines.push(renderProcessTable(result.processes))
    yield* Console.log(lines.join("\n"))
  })
).pipe(Command.withDescription("Reload processes with no downtime, one instance at a time (a single instance is restarted); --port overrides the port for this run only"))
