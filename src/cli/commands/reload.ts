/**
 * `pmfx reload <id|name|namespace|all|file> [--port P] [--update-env]`: replaces the instances one
 * at a time so n-1 keep serving (docs/architecture.md §4). An app with a single instance is
 * restarted instead, and the output says so. Given an ecosystem file, every app of it reloads with
 * the file's current definition (docs/cli.md, "Applying a file"). `--json` prints
 * `{processes, restarted_instead}` (the one action whose result carries more than the rows).
 */
import { Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import { tryDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { style } from "../style"
import { plural } from "./actionOptions"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { prepareRun, runOptions, runQualifier } from "./restart"
import { actOnEach, mergeRows, reportOutcome } from "./selectors"

export const reloadCommand = Command.make(
  "reload",
  runOptions,
  ({ targets, port, only, env, updateEnv, watch, json }) =>
    Effect.gen(function* () {
      const prepared = yield* prepareRun("reload", { targets, port, only, env, updateEnv, watch, json })
      if (Option.isNone(prepared)) return
      const payload = prepared.value
      const outcome = yield* actOnEach(targets, (target) =>
        tryDaemon(json, (api) => api.processes.reload({ path: { id: target }, payload }), { selector: target })
      )
      const merged = (
        results: ReadonlyArray<{
          readonly processes: ReadonlyArray<ProcessSummary>
          readonly restarted_instead: ReadonlyArray<string>
        }>
      ) => ({
        processes: mergeRows(results.map((r) => r.processes)),
        restarted_instead: [...new Set(results.flatMap((r) => r.restarted_instead))]
      })
      yield* reportOutcome(outcome, {
        json,
        verb: "reloaded",
        doneJson: merged,
        printDone: (results) => {
          const result = merged(results)
          if (json) return printJson(result)
          const out = process.stdout
          const lines = [
            `${style.green(out)("reloaded")} ${plural(result.processes.length, "process", "processes")}${runQualifier(port, updateEnv)}`
          ]
          for (const name of result.restarted_instead)
            lines.push(`${style.yellow(out)(name)} has one instance: restarted instead of reloaded`)
          lines.push(renderProcessTable(result.processes))
          return Console.log(lines.join("\n"))
        }
      })
    })
).pipe(
  Command.withDescription(
    "Reload processes with no downtime, one instance at a time (a single instance is restarted) — or every app of an ecosystem file with its current definition; --port overrides the port for this run only, --update-env refreshes the environment"
  )
)
