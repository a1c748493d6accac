/**
 * The three ways a descendant leaves an app's process group (issue 11, defect 8), as app
 * settings, and how a test finds the escaped process: each escapee sleeps a unique number of
 * seconds, so its command line names it and nothing else on the machine.
 */
import * as fs from "node:fs"
import { isAlive } from "./processes"

export interface EscapeShape {
  readonly name: string
  /** The `sleep` argument of the process that escapes (unique per test run). */
  readonly marker: string
  readonly app: { readonly name: string; readonly script: string; readonly args: ReadonlyArray<string> }
}

export const escapeShapes = (seed: number): ReadonlyArray<EscapeShape> => {
  const marker = (i: number) => String(100_000 + ((seed * 3 + i) % 800_000))
  const [a, b, c] = [marker(0), marker(1), marker(2)]
  return [
    {
      name: "setsid child",
      marker: a,
      app: { name: "esc-setsid", script: "bash", args: ["-c", `setsid sleep ${a} & sleep 1000`] }
    },
    {
      name: "node detached child",
      marker: b,
      app: {
        name: "esc-detached",
        script: process.execPath,
        args: [
          "-e",
          `require("child_process").spawn("sleep", ["${b}"], { detached: true, stdio: "ignore" }).unref(); setInterval(() => {}, 1000)`
        ]
      }
    },
    {
      name: "double fork (parent exits at once)",
      marker: c,
      app: { name: "esc-fork", script: "bash", args: ["-c", `( setsid sleep ${c} & ); sleep 1000`] }
    }
  ]
}

/** Live `sleep <marker>` processes. */
export const escapees = (marker: string): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8") === `sleep\0${marker}\0` && isAlive(pid)
      } catch {
        return false
      }
    })

/** Kills whatever escaped (a failing test must not leave them behind). */
export const killEscapees = (shapes: ReadonlyArray<EscapeShape>): number => {
  let killed = 0
  for (const shape of shapes) {
    for (const pid of escapees(shape.marker)) {
      try {
        process.kill(pid, "SIGKILL")
        killed++
      } catch {
        // Gone.
      }
    }
  }
  return killed
}
