/**
 * `pmfx restart|reload <app> --watch`: PM2 toggles the watcher this way. In pmfx, watch is part of
 * the app's definition, so the flag is refused with the two ways to change it (docs/decisions.md,
 * "restart --watch"): edit the ecosystem file and `pmfx apply` it, or start a command-line app
 * again with `pmfx start … --watch`.
 */
import { Options } from "@effect/cli"
import { failWith } from "../output"
import { badUsage } from "../usage"

export const watchChangeOption = Options.boolean("watch").pipe(
  Options.withDescription("(PM2's toggle) refused: pmfx says how to change watch — in the file and `pmfx apply`, or `pmfx start … --watch`")
)

export const refuseWatchChange = (file: string | null, targets: ReadonlyArray<string>, json: boolean) =>
  failWith(
    badUsage(
      "--watch",
      "does not switch watching on or off here: watch is part of an app's definition",
      file !== null
        ? `set "watch" (and "ignore_watch") in ${file}, then run \`pmfx apply ${file}\``
        : `for an app of an ecosystem file, set "watch" in the file and run \`pmfx apply <file>\` (\`pmfx show ${targets[0] ?? "<app>"}\` prints the file under "source"); for an app started from the command line, \`pmfx delete ${targets[0] ?? "<app>"}\` and start it again with \`pmfx start <script> --name ${targets[0] ?? "<app>"} --watch\``
    ),
    json
  )
