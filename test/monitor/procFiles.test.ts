import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import { makeOpenProcFiles, openProcFiles } from "../../src/monitor/procFiles"
import { pageSize, parseProcStat, readStat } from "../../src/monitor/procfs"
import { eventually, pidOf, spawnGroup } from "./processes"

/** This process's open descriptors, read from the kernel. */
const openDescriptors = (): number => fs.readdirSync("/proc/self/fd").length

const statPath = (pid: number) => `/proc/${pid}/stat`

const exited = (child: ChildProcess) =>
  Effect.promise(
    () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", () => resolve())
      )
  )

describe("kept-open /proc files", () => {
  it.scopedLive("reads a process's current stat line through one descriptor kept between reads", () =>
    Effect.gen(function* () {
      // A shell spinning in a loop of builtins: its own CPU ticks grow.
      const busy = yield* spawnGroup("sh", ["-c", "while :; do :; done"])
      const pid = pidOf(busy)
      const files = makeOpenProcFiles(8)
      yield* Effect.addFinalizer(() => Effect.sync(() => files.close()))
      const before = openDescriptors()
      const first = parseProcStat(files.read(statPath(pid)) ?? "", pageSize())
      expect(first?.pid).toBe(pid)
      expect(files.size()).toBe(1)
      expect(openDescriptors()).toBe(before + 1)
      // The same descriptor shows the figures of each moment, as a fresh open does.
      const later = yield* eventually(
        Effect.sync(() => parseProcStat(files.read(statPath(pid)) ?? "", pageSize())),
        (stat) => (stat?.utime ?? 0) + (stat?.stime ?? 0) > (first?.utime ?? 0) + (first?.stime ?? 0),
        "the spinning shell's CPU ticks to grow"
      )
      expect(later?.startTime).toBe(readStat(pid, pageSize())?.startTime)
      expect(files.size()).toBe(1)
      expect(openDescriptors()).toBe(before + 1)
    })
  )

  it.scopedLive("answers undefined once the process is reaped, and closes its descriptor", () =>
    Effect.gen(function* () {
      const sleeper = yield* spawnGroup("sleep", ["30"])
      const pid = pidOf(sleeper)
      const files = makeOpenProcFiles(8)
      yield* Effect.addFinalizer(() => Effect.sync(() => files.close()))
      expect(files.read(statPath(pid))).toContain(`${pid} (sleep)`)
      expect(files.size()).toBe(1)
      process.kill(pid, "SIGKILL")
      yield* exited(sleeper)
      expect(files.read(statPath(pid))).toBeUndefined()
      expect(files.size()).toBe(0)
      // A path that never existed reads as undefined too, and holds nothing.
      expect(files.read("/proc/0/stat")).toBeUndefined()
      expect(files.size()).toBe(0)
    })
  )

  it.scopedLive("a sweep closes the files not read since the previous sweep; close closes the rest", () =>
    Effect.gen(function* () {
      const a = pidOf(yield* spawnGroup("sleep", ["30"]))
      const b = pidOf(yield* spawnGroup("sleep", ["30"]))
      const before = openDescriptors()
      const files = makeOpenProcFiles(8)
      files.read(statPath(a))
      files.read(statPath(b))
      files.sweep()
      expect(files.size()).toBe(2)
      expect(openDescriptors()).toBe(before + 2)
      files.read(statPath(a))
      files.sweep()
      expect(files.size()).toBe(1)
      expect(openDescriptors()).toBe(before + 1)
      files.close()
      expect(files.size()).toBe(0)
      expect(openDescriptors()).toBe(before)
    })
  )

  it.scopedLive("keeps no more than its limit open and reads the files beyond it the plain way", () =>
    Effect.gen(function* () {
      const pids = [
        pidOf(yield* spawnGroup("sleep", ["30"])),
        pidOf(yield* spawnGroup("sleep", ["30"])),
        pidOf(yield* spawnGroup("sleep", ["30"]))
      ]
      const before = openDescriptors()
      const files = makeOpenProcFiles(2)
      yield* Effect.addFinalizer(() => Effect.sync(() => files.close()))
      for (const pid of pids) expect(files.read(statPath(pid))).toContain(`${pid} (sleep)`)
      expect(files.size()).toBe(2)
      expect(openDescriptors()).toBe(before + 2)
    })
  )

  it.scopedLive("openProcFiles closes its files when its scope closes", () =>
    Effect.gen(function* () {
      const pid = pidOf(yield* spawnGroup("sleep", ["30"]))
      const before = openDescriptors()
      const during = yield* Effect.scoped(
        Effect.gen(function* () {
          const files = yield* openProcFiles()
          files.read(statPath(pid))
          files.read("/proc/uptime")
          return openDescriptors()
        })
      )
      expect(during).toBe(before + 2)
      expect(openDescriptors()).toBe(before)
    })
  )
})
