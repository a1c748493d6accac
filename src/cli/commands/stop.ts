/** `pmfx stop <id|name|namespace|all>...`: stops the rows (idempotent); they keep their definitions. */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { tryDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { actOnEach, mergeRows, reportOutcome, targetsArg } from "./selectors"

export const stopCommand = Command.make("stop", { targets: targetsArg, json: jsonOption }, ({ targets, json }) =>
  Effect.gen(function* () {
    const outcome = yield* actOnEach(targets, (target) =>
      tryDaemon(json, (api) => api.processes.stop({ path: { id: target } }), { selector: target })
    )
    yield* reportOutcome(outcome, {
      json,
      verb: "stopped",
      doneJson: (results) => mergeRows(results.map((r) => r.processes)),
      printDone: (results) => {
        const rows = mergeRows(results.map((r) => r.processes))
        return json
          ? printJson(rows)
          : Console.log(
              `${style.green(process.stdout)("stopped")} ${plural(rows.length, "process", "processes")}\n${renderProcessTable(rows)}`
            )
      }
    })
  })
).pipe(
  Command.withDescription(
    "Stop processes by id, app name, namespace, or all — several at once (they stay listed until deleted)"
  )
)
