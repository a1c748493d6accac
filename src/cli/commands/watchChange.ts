/**
 * `pmfx restart|reload <app> --watch`: PM2 toggles the watcher this way. In pmfx, watch is part of
 * the app's definition, so the flag is refused with the way to change it for that app (docs/decisions.md,
 * "restart --watch"): edit the ecosystem file it came from and `pmfx apply` it, or start a
 * command-line app again with `pmfx start … --watch`.
 */
import { Options } from "@effect/cli"
import { Effect } from "effect"
import { tryDaemon } from "../daemonCall"
import { failWith } from "../output"
import { badUsage } from "../usage"

export const watchChangeOption = Options.boolean("watch").pipe(
  Options.withDescription(
    "(PM2's toggle) refused: pmfx says how to change watch — in the file and `pmfx apply`, or `pmfx start … --watch`"
  )
)

const refuse = (suggestion: string, json: boolean) =>
  failWith(
    badUsage("--watch", "does not switch watching on or off here: watch is part of an app's definition", suggestion),
    json
  )

const applyHint = (file: string) => `set "watch" (and "ignore_watch") in ${file}, then run \`pmfx apply ${file}\``

export const refuseWatchChange = (file: string | null, targets: ReadonlyArray<string>, json: boolean) =>
  Effect.gen(function* () {
    if (file !== null) return yield* refuse(applyHint(file), json)
    const app = targets[0] ?? "<app>"
    const commandLine = `\`pmfx delete ${app}\` and start it again with \`pmfx start <script> --name ${app} --watch\``
    // The file the app came from, when the daemon knows it (config_file), makes the hint exact.
    const rows = yield* tryDaemon(json, (api) => api.processes.list({ urlParams: {} }))
    const named = rows._tag === "Right" ? rows.right.filter((row) => row.name === app || String(row.id) === app) : []
    const files = [...new Set(named.map((row) => row.config_file ?? null))]
    if (files.length === 1 && files[0] !== null && files[0] !== undefined)
      return yield* refuse(applyHint(files[0]), json)
    if (files.length === 1 && files[0] === null)
      return yield* refuse(`${app} was started from the command line: ${commandLine}`, json)
    return yield* refuse(
      `for an app of an ecosystem file, set "watch" in the file and run \`pmfx apply <file>\` (\`pmfx show ${app}\` prints it as "config file"); for an app started from the command line, ${commandLine}`,
      json
    )
  })
