/** `pmfx reset <id|name|namespace|all>...`: zeroes restart counters (docs/cli.md). */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { tryDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { actOnEach, mergeRows, reportOutcome, targetsArg } from "./selectors"

export const resetCommand = Command.make("reset", { targets: targetsArg, json: jsonOption }, ({ targets, json }) =>
  Effect.gen(function* () {
    const outcome = yield* actOnEach(targets, (target) =>
      tryDaemon(json, (api) => api.processes.reset({ path: { id: target } }), { selector: target })
    )
    yield* reportOutcome(outcome, {
      json,
      verb: "reset",
      doneJson: (results) => mergeRows(results.map((r) => r.processes)),
      printDone: (results) => {
        const rows = mergeRows(results.map((r) => r.processes))
        return json
          ? printJson(rows)
          : Console.log(
              `${style.green(process.stdout)("reset")} the counters of ${plural(rows.length, "process", "processes")}\n${renderProcessTable(rows)}`
            )
      }
    })
  })
).pipe(
  Command.withDescription(
    "Zero the restart counters (restarts, crashes, unstable exits in a row) of apps, ids, namespaces, or all"
  )
)
