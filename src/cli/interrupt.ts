/**
 * What Ctrl-C (SIGINT, or SIGTERM) means for the exit code. The runtime answers either signal by
 * interrupting the command; most commands are then cut short (130, as shells report a SIGINT), but
 * a command that runs until the user stops it (`logs --follow`, `monit`) declares that this is its
 * normal end, so it exits 0.
 */
import { Effect } from "effect"

let interruptIsNormalEnd = false

/** Declares that being interrupted ends the running command normally (exit 0). */
export const endsOnInterrupt: Effect.Effect<void> = Effect.sync(() => {
  interruptIsNormalEnd = true
})

/** The exit code of a command that was interrupted by a signal. */
export const interruptedExitCode = (): number => (interruptIsNormalEnd ? 0 : 130)
