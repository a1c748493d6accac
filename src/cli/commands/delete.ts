/**
 * `pmfx delete <id|name|namespace|all|stopped|errored>... [--status] [--force]` (docs/architecture.md §10): stops and
 * removes rows. `stopped` and `errored` remove the rows in that state; with `--status` the
 * argument is read as state names (`delete online --status`, `delete stopped,errored --status`).
 * `all` asks first when stdin is a terminal, unless `--force`.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect } from "effect"
import * as readline from "node:readline"
import { processStatuses } from "../../domain/ProcessStatus"
import { tryDaemon, withDaemon } from "../daemonCall"
import { CliExit, failWith, printJson } from "../output"
import { deletedLine, deletedMessage } from "../actionText"
import { badUsage } from "../usage"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { expandFileTargets } from "./fileTargets"
import { actOnEach, reportOutcome } from "./selectors"

const BY_STATUS = new Set(["stopped", "errored"])

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
const confirm = (question: string) =>
  Effect.async<boolean>((resume) => {
    const rl = readline.createInterface({ input: process.stdin, output: process.stderr })
    let answered = false
    const answer = (yes: boolean) => {
      if (answered) return
      answered = true
      rl.close()
      resume(Effect.succeed(yes))
    }
    rl.question(question, (text) => answer(/^y(es)?$/i.test(text.trim())))
    // End of input (Ctrl-D) is a no.
    rl.on("close", () => answer(false))
    return Effect.sync(() => rl.close())
  })

export const deleteCommand = Command.make(
  "delete",
  {
    targets: Args.text({ name: "id|name|namespace|all|stopped|errored" }).pipe(
      Args.withDescription(
        "process ids, app names, namespaces, all, or the rows that are stopped or errored; several are deleted one after the other"
      ),
      Args.atLeast(1)
    ),
    status: Options.boolean("status").pipe(
      Options.withDescription("read the argument as process states (comma-separated): delete online --status")
    ),
    force: Options.boolean("force").pipe(
      Options.withAlias("f"),
      Options.withDescription("do not ask before deleting all")
    ),
    json: jsonOption
  },
  ({ targets: given, status, force, json }) =>
    Effect.gen(function* () {
      const report = (deleted: ReadonlyArray<number>) =>
        json
          ? printJson({ success: true, message: deletedMessage(deleted), deleted })
          : Console.log(deletedLine(deleted))

      if (status) {
        const states = given.flatMap((t) => t.split(",")).map((s) => s.trim())
        const unknown = states.find((s) => !(processStatuses as ReadonlyArray<string>).includes(s))
        if (unknown !== undefined) {
          return yield* failWith(
            badUsage(
              "--status",
              `${JSON.stringify(unknown)} is not a process state`,
              `use one or more of ${processStatuses.join(", ")}, separated by commas`
            ),
            json
          )
        }
        const result = yield* withDaemon(json, (api) =>
          api.processes.deleteByStatus({ urlParams: { status: states.join(",") } })
        )
        return yield* report(result.deleted)
      }

      // An ecosystem file stands for its apps (fileTargets.ts).
      const targets = yield* expandFileTargets(given, json)
      // The question says how many rows there are: listed only when it is asked (a terminal).
      if (targets.some((t) => t.trim() === "all") && !force && process.stdin.isTTY === true) {
        const before = yield* withDaemon(json, (api) => api.processes.list({ urlParams: {} }))
        const yes =
          before.length === 0 ||
          (yield* confirm(
            `Delete all ${plural(before.length, "process", "processes")} (running ones are stopped first)? [y/N] `
          ))
        if (!yes) {
          yield* Console.error("nothing deleted")
          return yield* new CliExit({ code: 1 })
        }
      }
      // The daemon answers with the ids this request removed: a concurrent delete of the same
      // rows is not reported twice (a before/after diff of `list` would be). `stopped` and
      // `errored` remove the rows in that state.
      const outcome = yield* actOnEach(targets, (target) =>
        BY_STATUS.has(target)
          ? tryDaemon(json, (api) => api.processes.deleteByStatus({ urlParams: { status: target } }))
          : tryDaemon(json, (api) => api.processes.deleteByStatus({ urlParams: { id: target } }), { selector: target })
      )
      const deletedIds = (results: ReadonlyArray<{ readonly deleted: ReadonlyArray<number> }>) => [
        ...new Set(results.flatMap((r) => r.deleted))
      ]
      yield* reportOutcome(outcome, {
        json,
        verb: "deleted",
        doneJson: (results) => ({
          success: true,
          message: deletedMessage(deletedIds(results)),
          deleted: deletedIds(results)
        }),
        printDone: (results) => report(deletedIds(results))
      })
    })
).pipe(
  Command.withDescription(
    "Stop and remove processes by id, app name, namespace, all (asks on a terminal unless --force), or by state (stopped, errored, --status)"
  )
)
