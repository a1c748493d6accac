/**
 * @effect/cli prints what is wrong with a command line itself (on the Console's error stream)
 * before failing with a `ValidationError`; pmfx prints its own structured error instead
 * (usageError.ts). So the command line is parsed with that stream silenced, and the command's
 * handler — once parsing is over — runs with the real Console again.
 */
import { Console, Context, Effect } from "effect"

/** The Console the command's handler writes to. */
class HandlerConsole extends Context.Tag("pmfx/HandlerConsole")<HandlerConsole, Console.Console>() {}

const silentErrors = (real: Console.Console): Console.Console => ({
  ...real,
  error: () => Effect.void,
  unsafe: { ...real.unsafe, error: () => undefined }
})

/** Runs the parsing and the command with @effect/cli's error printing silenced. */
export const withQuietParsing = <A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, HandlerConsole>> =>
  Effect.flatMap(Effect.console, (real) =>
    self.pipe(Effect.withConsole(silentErrors(real)), Effect.provideService(HandlerConsole, real))
  )

/** For `Command.transformHandler` on the root: the handler writes to the real Console. */
export const handlerWithRealConsole = <E, R>(
  handler: Effect.Effect<void, E, R>
): Effect.Effect<void, E, R | HandlerConsole> =>
  Effect.flatMap(HandlerConsole, (real) => Effect.withConsole(handler, real))
