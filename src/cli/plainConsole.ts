/**
 * @effect/cli colors its help and error texts unconditionally. This wraps the Console so that
 * escape sequences are removed from what goes to a stream that is not a color terminal (a pipe, a
 * file, CI) or when `NO_COLOR` is set — the same rule as `style.ts`.
 */
import { Console, Effect } from "effect"
import { colorEnabled } from "./style"

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g

const strip = (args: ReadonlyArray<unknown>) => args.map((a) => (typeof a === "string" ? a.replace(ANSI, "") : a))

export const withPlainConsole = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.console, (current) => {
    const outPlain = !colorEnabled(process.stdout)
    const errPlain = !colorEnabled(process.stderr)
    if (!outPlain && !errPlain) return self
    const console: Console.Console = {
      ...current,
      log: (...args) => current.log(...(outPlain ? strip(args) : args)),
      info: (...args) => current.info(...(outPlain ? strip(args) : args)),
      error: (...args) => current.error(...(errPlain ? strip(args) : args)),
      warn: (...args) => current.warn(...(errPlain ? strip(args) : args)),
      unsafe: {
        ...current.unsafe,
        log: (...args) => current.unsafe.log(...(outPlain ? strip(args) : args)),
        error: (...args) => current.unsafe.error(...(errPlain ? strip(args) : args))
      }
    }
    return Effect.withConsole(self, console)
  })
