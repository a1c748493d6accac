/**
 * `pmfx kill`: stops every app and then the daemon, and returns only once the daemon is gone (its
 * socket no longer answers and its pid is dead). The apps are marked stopped-by-kill: the next
 * daemon keeps them stopped until `pmfx resurrect` (docs/architecture.md §5). With no daemon running there is
 * nothing to do — `kill` never starts one.
 */
import { Command } from "@effect/cli"
import { Console, Duration, Effect, Schedule } from "effect"
import * as fs from "node:fs"
import { lockHolder } from "../../daemon/DaemonLock"
import { ExitCode } from "../../domain/errors"
import { DaemonClient } from "../DaemonClient"
import { requireLocal } from "../DaemonTarget"
import { withDaemon } from "../daemonCall"
import { CliExit, printJson } from "../output"
import { style } from "../style"
import { plural } from "./actionOptions"
import { jsonOption } from "./configOptions"

/** How long the daemon may take to stop its apps (each gets its kill_timeout) and exit. */
const EXIT_TIMEOUT = Duration.seconds(90)

/** Whether a process lives; a zombie (exited, not yet reaped) counts as gone. */
export const isAlive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    try {
      process.kill(pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "EPERM"
    }
  }
}

export const killCommand = Command.make("kill", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    yield* requireLocal("kill", "it stops the daemon itself, through a route only its socket serves")
    const client = yield* DaemonClient
    const { paths } = client
    if (!(yield* client.answers)) {
      // Only the process that holds the lock: a zombie or a stranger with a reused pid is no daemon.
      const pid = lockHolder(paths.daemonPid)
      if (pid !== null) {
        yield* Console.error(
          `DAEMON_UNREACHABLE the daemon (pid ${pid}) does not answer on ${paths.socket}\n  suggestion: see ${paths.daemonLog}; stop it with \`kill ${pid}\``
        )
        return yield* new CliExit({ code: ExitCode.daemonUnreachable })
      }
      return yield* json
        ? printJson({ success: true, message: "no daemon is running", stopped: [], daemon_pid: null })
        : Console.log("no daemon is running")
    }
    const { pid, result } = yield* withDaemon(json, (api) =>
      Effect.gen(function* () {
        const { pid } = yield* api.system.status()
        return { pid, result: yield* api.daemon.kill() }
      })
    )
    const gone = Effect.map(client.answers, (answers) => !answers && !isAlive(pid))
    const exited = yield* gone.pipe(
      Effect.repeat({ schedule: Schedule.spaced(Duration.millis(50)), until: (done) => done }),
      Effect.timeoutOption(EXIT_TIMEOUT)
    )
    if (exited._tag === "None") {
      yield* Console.error(
        `DAEMON_UNREACHABLE the daemon (pid ${pid}) is still running ${Duration.toSeconds(EXIT_TIMEOUT)}s after it was asked to stop\n  suggestion: see ${paths.daemonLog}; stop it with \`kill ${pid}\``
      )
      return yield* new CliExit({ code: ExitCode.unexpected })
    }
    if (json)
      return yield* printJson({
        success: true,
        message: result.message,
        stopped: result.stopped,
        daemon_pid: pid,
        host: result.host
      })
    const stopped = `${style.green(process.stdout)("stopped")} ${plural(result.stopped.length, "process", "processes")}`
    // In a container there is nothing left to resurrect them: the engine restarts the container (or not).
    yield* Console.log(
      result.host === "runtime"
        ? `${stopped} and pmfx-runtime (pid ${pid}): the container ends with it`
        : result.stopped.length === 0
          ? `${stopped} and the daemon (pid ${pid})`
          : `${stopped} and the daemon (pid ${pid}); \`pmfx resurrect\` starts them again`
    )
  })
).pipe(
  Command.withDescription(
    "Stop every app and the daemon (definitions are kept; `pmfx resurrect` starts the apps again)"
  )
)
