/**
 * `pmfx daemon`: the daemon in the foreground (systemd, containers). `bin.ts` runs it directly
 * from `dist/daemon.cjs` before the CLI starts; this entry gives it its help text and serves the
 * rare invocation that reaches the command tree (global options before `daemon`).
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import * as path from "node:path"

export const daemonCommand = Command.make("daemon", {}, () =>
  Effect.zipRight(
    Effect.sync(() => {
      const daemon = require(path.join(__dirname, "daemon.cjs")) as { readonly main: (args: ReadonlyArray<string>) => void }
      daemon.main([])
    }),
    // The daemon ends the process itself when it stops.
    Effect.never
  )
).pipe(
  Command.withDescription(
    "Run the daemon in the foreground (for systemd and containers); SIGTERM stops every app and exits 0, keeping what should run for the next start"
  )
)
