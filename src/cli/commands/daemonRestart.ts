/**
 * `pmfx daemon restart` (and `pmfx update`, PM2's name for it): replaces the daemon without
 * stopping the apps — to load a new pmfx version, say. The daemon lets go of its apps (they keep
 * running, their output waits in their FIFOs) and exits; a new daemon starts and adopts them: same
 * pids, ids, ports and restart counts, and no log line lost (docs/decisions.md, "Apps outlive the
 * daemon"). With no daemon running it just starts one, which adopts whatever an earlier one left.
 */
import { Command } from "@effect/cli"
import { Console, Duration, Effect, Schedule } from "effect"
import { ExitCode } from "../../domain/errors"
import { DaemonClient } from "../DaemonClient"
import { requireLocal } from "../DaemonTarget"
import { withDaemon } from "../daemonCall"
import { CliExit, printJson } from "../output"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"
import { isAlive } from "./kill"

/** Handing over does not stop anything, so the old daemon is gone within a few seconds. */
const EXIT_TIMEOUT = Duration.seconds(30)

const restartDaemon = (json: boolean, command: string) =>
  Effect.gen(function* () {
    yield* requireLocal(command, "it replaces the daemon of this machine, through a route only its socket serves")
    const client = yield* DaemonClient
    const { paths } = client
    let previous: number | null = null
    let previousPids: ReadonlySet<number> = new Set()
    if (yield* client.answers) {
      const { pid, pids } = yield* withDaemon(json, (api) =>
        Effect.gen(function* () {
          const { pid } = yield* api.system.status()
          const rows = yield* api.processes.list({ urlParams: {} })
          yield* api.daemon.handOver()
          return { pid, pids: new Set(rows.flatMap((row) => (row.pid === null ? [] : [row.pid]))) }
        })
      )
      previous = pid
      previousPids = pids
      const gone = Effect.map(client.answers, (answers) => !answers && !isAlive(pid))
      const exited = yield* gone.pipe(
        Effect.repeat({ schedule: Schedule.spaced(Duration.millis(25)), until: (done) => done }),
        Effect.timeoutOption(EXIT_TIMEOUT)
      )
      if (exited._tag === "None") {
        yield* Console.error(
          `DAEMON_UNREACHABLE the daemon (pid ${pid}) is still running ${Duration.toSeconds(EXIT_TIMEOUT)}s after it was asked to hand its apps over\n  suggestion: see ${paths.daemonLog}; \`pmfx daemon restart\` again once it has exited`
        )
        return yield* new CliExit({ code: ExitCode.unexpected })
      }
    }
    // The next command's daemon: started now, it adopts the apps before it answers.
    const { pid, rows } = yield* withDaemon(json, (api) =>
      Effect.gen(function* () {
        const { pid } = yield* api.system.status()
        return { pid, rows: yield* api.processes.list({ urlParams: {} }) }
      })
    )
    const running = rows.filter((row) => row.pid !== null)
    if (json)
      return yield* printJson({
        success: true,
        previous_daemon_pid: previous,
        daemon_pid: pid,
        running: running.map((row) => ({ id: row.id, name: row.name, pid: row.pid }))
      })
    // Cluster-mode apps are started again, not adopted (docs/decisions.md): say how many.
    const restarted = previousPids.size === 0 ? 0 : running.filter((row) => !previousPids.has(row.pid!)).length
    yield* Console.log(
      `${style.green(process.stdout)("restarted")} the daemon (${previous === null ? "none was running" : `pid ${previous}`} → pid ${pid}); ${plural(running.length, "process", "processes")} running, ${
        restarted === 0
          ? "adopted without a restart"
          : `${running.length - restarted} adopted without a restart, ${restarted} started again (cluster mode)`
      }`
    )
  })

export const daemonRestartCommand = Command.make("restart", { json: jsonOption }, ({ json }) =>
  restartDaemon(json, "daemon restart")
).pipe(
  Command.withDescription(
    "Replace the daemon (a new pmfx version, say) without stopping the apps: the new daemon adopts them, same pids, no log line lost"
  )
)

export const updateCommand = Command.make("update", { json: jsonOption }, ({ json }) =>
  restartDaemon(json, "update")
).pipe(
  Command.withDescription(
    "PM2's name for `pmfx daemon restart`: replace the daemon, the apps keep running (unlike `pm2 update`, nothing restarts)"
  )
)
