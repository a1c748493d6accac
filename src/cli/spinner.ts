/**
 * A spinner on stderr while an effect runs — only when stderr is a terminal, so pipes, log files
 * and CI output never receive carriage returns or escape codes.
 */
import { Effect, Fiber, Schedule } from "effect"

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const CLEAR_LINE = "\r\u001b[K"

export const withSpinner = <A, E, R>(label: string, self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const err = process.stderr
  if (err.isTTY !== true) return self
  return Effect.gen(function* () {
    const started = Date.now()
    let frame = 0
    const draw = Effect.sync(() => {
      const seconds = Math.floor((Date.now() - started) / 1000)
      err.write(`${CLEAR_LINE}${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`)
    })
    const spinner = yield* Effect.fork(Effect.repeat(draw, Schedule.spaced("80 millis")))
    return yield* self.pipe(
      Effect.ensuring(Fiber.interrupt(spinner).pipe(Effect.zipRight(Effect.sync(() => err.write(CLEAR_LINE)))))
    )
  })
}
