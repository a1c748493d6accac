/**
 * `pmfx save` (PM2's `pm2 save`, also `dump`): the daemon already writes `state.json` on every
 * change (docs/architecture.md, persistence), so there is nothing to write; `save` checks that the
 * saved state is current — `GET /health`'s `state` — and says so, or fails with the reason (a full
 * disk) when the daemon cannot save. PM2 scripts and boot guides (`pm2 startup`, then `pm2 save`)
 * run it after their changes: an error here would stop them for nothing.
 */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { FileError } from "../../domain/errors"
import { DaemonClient } from "../DaemonClient"
import { withDaemon } from "../daemonCall"
import { failWith, printJson } from "../output"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"

export const saveCommand = Command.make("save", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    const health = yield* withDaemon(json, (api) => api.system.health({ urlParams: {} }))
    const { paths, target } = yield* DaemonClient
    const file = target._tag === "Local" ? paths.state : "the daemon's state.json"
    const { state } = health
    if (!state.saved) {
      const reason = state.error === null ? "the last save failed" : `${state.error.code}: ${state.error.message}`
      return yield* failWith(
        new FileError({
          message: `${file} is not up to date: ${reason}`,
          details: {
            path: file,
            reason,
            suggestion:
              "free space on the disk that holds it (rotated logs are in the home's logs folder); the daemon saves again by itself every 2s, then run `pmfx save` again to check"
          }
        }),
        json
      )
    }
    const processes = plural(health.processes.total, "process", "processes")
    if (json) {
      return yield* printJson({
        success: true,
        message: `${file} holds the current state (${processes})`,
        file,
        last_saved_at: state.last_saved_at,
        processes: health.processes.total
      })
    }
    yield* Console.log(
      `saved: ${file} holds the current state (${processes}${state.last_saved_at === null ? "" : `, written ${state.last_saved_at}`})\n` +
        "pmfx saves it on every change, so there is nothing else to do: the daemon brings these apps back when it starts (at boot with `pmfx startup`; after `pmfx kill`, with `pmfx resurrect`)"
    )
  })
).pipe(
  Command.withDescription(
    "Check that the daemon's saved state is current (PM2's pm2 save; pmfx saves on every change by itself)"
  )
)
