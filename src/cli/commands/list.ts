/** `pmfx list [id|name|namespace]...`: the process rows, all or those named, as a table or `--json`. */
import { Args, Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { ProcessNotFound } from "../../domain/errors"
import { withDaemon } from "../daemonCall"
import { filterRows } from "../listFilter"
import { failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { jsonOption } from "./configOptions"

const filtersArg = Args.text({ name: "id|name|namespace" }).pipe(
  Args.withDescription("show only these rows: ids, app names (all their instances) or namespaces (default: every row)"),
  Args.repeated
)

export const listCommand = Command.make("list", { filters: filtersArg, json: jsonOption }, ({ filters, json }) =>
  Effect.gen(function* () {
    const all = yield* withDaemon(json, (api) => api.processes.list({ urlParams: {} }))
    const rows = filterRows(all, filters)
    if (rows instanceof ProcessNotFound) return yield* failWith(rows, json)
    yield* json ? printJson(rows) : Console.log(renderProcessTable(rows))
  })
).pipe(
  Command.withDescription(
    "List every process, or those of some ids, names or namespaces: ID, name, status, PID, port, CPU, memory, uptime, restarts"
  )
)
