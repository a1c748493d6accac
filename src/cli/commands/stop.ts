/**
 * `pmfx stop <id|name|namespace|all|file>...`: stops the rows (idempotent); they keep their
 * definitions. An ecosystem file stands for its apps (fileTargets.ts).
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { stoppedHeadline } from "../actionText"
import { tryDaemon } from "../daemonCall"
import { jsonOption } from "./configOptions"
import { expandFileTargets } from "./fileTargets"
import { actOnEach, reportRows, targetsArg } from "./selectors"

export const stopCommand = Command.make("stop", { targets: targetsArg, json: jsonOption }, ({ targets, json }) =>
  Effect.gen(function* () {
    const outcome = yield* actOnEach(yield* expandFileTargets(targets, json), (target) =>
      tryDaemon(json, (api) => api.processes.stop({ path: { id: target } }), { selector: target })
    )
    yield* reportRows(outcome, json, "stopped", stoppedHeadline)
  })
).pipe(
  Command.withDescription(
    "Stop processes by id, app name, namespace, or all — several at once (they stay listed until deleted)"
  )
)
