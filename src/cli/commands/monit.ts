/**
 * `pmfx monit` (docs/cli.md): on a terminal, the full-screen live view — the process table with a
 * selection, the selected row's details, CPU/memory sparklines and live log lines, keys to act on
 * it (monit/). When stdout is no terminal (a pipe, a file, cron), one snapshot of the table is
 * printed and the command exits 0.
 */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { DaemonClient } from "../DaemonClient"
import { withDaemon } from "../daemonCall"
import { endsOnInterrupt } from "../interrupt"
import { runMonit } from "../monit/runMonit"
import { renderMonit } from "../monitView"

/** The snapshot's width: lines are never cut in a pipe narrower than this. */
const SNAPSHOT_WIDTH = 120

const snapshot = withDaemon(false, (api) =>
  Effect.gen(function* () {
    const rows = yield* api.processes.list({ urlParams: {} })
    // Host figures are a bonus: the snapshot works without them.
    const stats = yield* api.system.stats().pipe(Effect.option)
    const host =
      stats._tag === "Some"
        ? {
            cpuPercent: stats.value.cpu.usage_percent,
            memoryUsed: stats.value.memory.used,
            memoryTotal: stats.value.memory.total
          }
        : null
    return renderMonit(
      { rows, host, time: new Date(), error: null },
      { width: SNAPSHOT_WIDTH, height: rows.length + 4 }
    )
  })
).pipe(Effect.flatMap((lines) => Console.log(lines.join("\n"))))

export const monitCommand = Command.make("monit", {}, () =>
  Effect.gen(function* () {
    if (process.stdout.isTTY !== true) return yield* snapshot
    yield* endsOnInterrupt
    const client = yield* DaemonClient
    // The first read goes through the usual checks: no daemon (exit 7), a refused key (exit 8).
    const api = yield* withDaemon(false, (api) => Effect.as(api.processes.list({ urlParams: {} }), api))
    yield* runMonit(api, client)
  })
).pipe(
  Command.withDescription(
    "Full-screen live view: process table (↑↓/j k select), details, CPU/memory sparklines, live logs (/ filters), r/R/s/S restart/reload/stop/start with y/n, q quits; without a terminal, prints one snapshot"
  )
)
