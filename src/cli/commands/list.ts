/** `pmfx list`: every process row, as a table or `--json`. */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { jsonOption } from "./configOptions"

export const listCommand = Command.make("list", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    const rows = yield* withDaemon(json, (api) => api.processes.list({ urlParams: {} }))
    yield* json ? printJson(rows) : Console.log(renderProcessTable(rows))
  })
).pipe(Command.withDescription("List every process: ID, name, status, PID, port, CPU, memory, uptime, restarts"))
