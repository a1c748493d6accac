/**
 * The terminal as monit uses it, as a scoped resource: the alternate screen, the cursor hidden,
 * keys read in raw mode. The finalizer gives all of it back on every way out — `q`, Ctrl-C,
 * SIGINT/SIGTERM, an error — and so does a `process.exit` elsewhere (the `exit` handler).
 */
import { Effect } from "effect"
import { type Key, parseKeys } from "./keys"

const ENTER = "\u001b[?1049h\u001b[?25l\u001b[H\u001b[2J" // alternate screen, hide cursor, clear
const LEAVE = "\u001b[?25h\u001b[?1049l" // show cursor, back to the main screen

export interface TerminalInput {
  readonly onKey: (key: Key) => void
  readonly onResize: () => void
}

export interface Terminal {
  readonly width: () => number
  readonly height: () => number
  readonly write: (text: string) => void
}

export const takeTerminal = (input: TerminalInput) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const out = process.stdout
      const stdin = process.stdin
      // Keys are read only from a terminal; with stdin redirected, Ctrl-C still arrives as SIGINT.
      const keys = stdin.isTTY === true
      const onData = (data: Buffer | string) => {
        for (const key of parseKeys(data.toString())) input.onKey(key)
      }
      const onResize = () => input.onResize()
      let given = false
      const giveBack = () => {
        if (given) return
        given = true
        process.off("exit", giveBack)
        out.off("resize", onResize)
        if (keys) {
          stdin.off("data", onData)
          stdin.setRawMode(false)
          stdin.pause()
        }
        out.write(LEAVE)
      }
      out.write(ENTER)
      process.on("exit", giveBack)
      out.on("resize", onResize)
      if (keys) {
        stdin.setRawMode(true)
        stdin.setEncoding("utf8")
        stdin.on("data", onData)
        stdin.resume()
      }
      const terminal: Terminal = {
        width: () => out.columns || 80,
        height: () => out.rows || 24,
        write: (text) => void out.write(text)
      }
      return { terminal, giveBack }
    }),
    ({ giveBack }) => Effect.sync(giveBack)
  ).pipe(Effect.map(({ terminal }) => terminal))
