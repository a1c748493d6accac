/** `pmfx resurrect`: starts the apps that should run, such as those `pmfx kill` stopped (docs/architecture.md §5). */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { requireLocal } from "../DaemonTarget"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const resurrectCommand = Command.make("resurrect", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    yield* requireLocal("resurrect", "it uses a daemon control route, which only the daemon's socket serves")
    const result = yield* withDaemon(json, (api) => api.daemon.resurrect())
    if (json) return yield* printJson(result.processes)
    yield* Console.log(
      `${style.green(process.stdout)("resurrected")} ${plural(result.processes.length, "process", "processes")}\n${renderProcessTable(result.processes)}`
    )
  })
).pipe(Command.withDescription("Start the apps that should run again, such as those stopped by `pmfx kill`"))
