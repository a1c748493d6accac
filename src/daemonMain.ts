/**
 * Entry of `dist/daemon.cjs`: the daemon in the foreground (`pmfx daemon`, systemd, containers)
 * and in the background (started by the CLI). Kept out of the CLI bundle so that everyday commands
 * do not load the server.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Layer } from "effect"
import { DaemonAlreadyRunning } from "./daemon/DaemonLock"
import { Paths } from "./daemon/Paths"
import { runDaemon } from "./daemon/runDaemon"

export const main = (args: ReadonlyArray<string>): void => {
  if (args.length > 0) {
    process.stderr.write(`pmfx daemon: unexpected argument ${JSON.stringify(args[0])}\nusage: pmfx daemon\n`)
    process.exitCode = 2
    return
  }
  const program = runDaemon.pipe(
    Effect.as(0),
    // Expected when several CLIs start a daemon at once: one wins, the others say so and leave.
    Effect.catchTag("DaemonAlreadyRunning", (error: DaemonAlreadyRunning) =>
      Effect.sync(() => {
        process.stderr.write(`pmfx daemon: another daemon (pid ${error.pid}) already runs for this PMFX_HOME (${error.file})\n`)
        return 1
      })
    ),
    Effect.provide(Layer.merge(Paths.Default, NodeContext.layer))
  )
  // Not NodeRuntime.runMain: its SIGTERM handler interrupts the program, which would close the
  // API before the apps are stopped. The daemon handles SIGTERM/SIGINT itself (runDaemon).
  const fiber = Effect.runFork(program)
  // Keeps the event loop alive while the daemon runs, whatever handles it holds.
  const keepAlive = setInterval(() => {}, 2 ** 31 - 1)
  fiber.addObserver((exit) => {
    clearInterval(keepAlive)
    if (Exit.isSuccess(exit)) process.exit(exit.value)
    if (!Cause.isInterruptedOnly(exit.cause)) {
      process.stderr.write(`pmfx daemon: ${Cause.pretty(exit.cause)}\n`)
      process.exit(1)
    }
    process.exit(0)
  })
}

if (require.main === module) main(process.argv.slice(2))
