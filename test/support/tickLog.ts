/**
 * Reading back the log of a test app that prints `<n> tick` lines, 0, 1, 2 … (the daemon hand-over
 * tests): every stored line must be whole and the numbers contiguous — no line lost, repeated or cut.
 */
import { expect } from "@effect/vitest"
import * as fs from "node:fs"

/** The numbers of the stored `<timestamp> <n> tick` lines of an out log, in file order. */
export const tickNumbers = (file: string): Array<number> =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const match = /^\S+ (\d+) tick$/.exec(line)
      if (match === null) throw new Error(`a cut or foreign line: ${JSON.stringify(line)}`)
      return Number(match[1])
    })

/** Every number from 0 once, in order (the first three places where it is not are shown). */
export const expectContiguous = (values: ReadonlyArray<number>): void => {
  const wrong = values.flatMap((value, i) => (value === i ? [] : [{ at: i, value }]))
  expect(wrong.slice(0, 3)).toEqual([])
}
