/** `pmfx reset <id|name|namespace|all>...`: zeroes restart counters (docs/cli.md). */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { tryDaemon } from "../daemonCall"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { actOnEach, reportRows, targetsArg } from "./selectors"

export const resetCommand = Command.make("reset", { targets: targetsArg, json: jsonOption }, ({ targets, json }) =>
  Effect.gen(function* () {
    const outcome = yield* actOnEach(targets, (target) =>
      tryDaemon(json, (api) => api.processes.reset({ path: { id: target } }), { selector: target })
    )
    yield* reportRows(
      outcome,
      json,
      "reset",
      (rows) => `${style.green(process.stdout)("reset")} the counters of ${plural(rows.length, "process", "processes")}`
    )
  })
).pipe(
  Command.withDescription(
    "Zero the restart counters (restarts, crashes, unstable exits in a row) of apps, ids, namespaces, or all"
  )
)
