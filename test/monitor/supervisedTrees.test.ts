import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { pageSize, readProcessTable, readStat, SMALL_FILE_BYTES } from "../../src/monitor/procfs"
import { descendantsOf } from "../../src/monitor/processTree"
import { openProcFiles } from "../../src/monitor/procFiles"
import { hasChildrenFiles, makeTreeReader, walkSupervisedTrees } from "../../src/monitor/supervisedTrees"
import { eventually, pidOf, spawnGroup, spawnNode } from "./processes"

const idle = "setInterval(() => {}, 1000)"

describe("the supervised trees", () => {
  it.scopedLive("holds each root and its descendants, with the same stat lines as the whole table", () =>
    Effect.gen(function* () {
      // A shell holding two sleeps (a tree of three), and a lone Node process.
      const shell = yield* spawnGroup("sh", ["-c", "sleep 30 & sleep 30 & wait"])
      const lone = yield* spawnNode(idle)
      const roots = [pidOf(shell), pidOf(lone)]
      yield* eventually(
        readProcessTable(),
        (table) => descendantsOf(roots[0]!, table).length === 3,
        "the shell's two sleeps"
      )
      const trees = yield* makeTreeReader().read(roots)
      const full = yield* readProcessTable()
      for (const root of roots) {
        expect([...descendantsOf(root, trees)].sort()).toEqual([...descendantsOf(root, full)].sort())
      }
      expect(trees.get(roots[1]!)?.ppid).toBe(process.pid)
      expect(trees.get(roots[0]!)?.pgrp).toBe(full.get(roots[0]!)?.pgrp)
    })
  )

  it.scopedLive("leaves out a root that has exited, and reads nothing for no root", () =>
    Effect.gen(function* () {
      const gone = yield* spawnGroup("true", [])
      const pid = pidOf(gone)
      yield* eventually(readProcessTable(), (table) => !table.has(pid) || table.get(pid)?.state === "Z", "true to exit")
      yield* Effect.promise(
        () => new Promise<void>((resolve) => (gone.exitCode !== null ? resolve() : gone.once("exit", () => resolve())))
      )
      const trees = yield* makeTreeReader().read([pid])
      expect(trees.has(pid)).toBe(false)
      if (hasChildrenFiles()) expect(walkSupervisedTrees([]).size).toBe(0)
    })
  )

  it.scopedLive.skipIf(!hasChildrenFiles())(
    "finds every child of a process whose children file is longer than the shared read buffer",
    () =>
      Effect.gen(function* () {
        // 1,000 sleeps: their pids take more than SMALL_FILE_BYTES in the shell's children file.
        const children = 1_000
        const shell = yield* spawnGroup("sh", [
          "-c",
          `i=0; while [ $i -lt ${children} ]; do sleep 300 & i=$((i+1)); done; wait`
        ])
        const root = pidOf(shell)
        const full = yield* eventually(
          readProcessTable(),
          (table) => descendantsOf(root, table).length > children,
          `the shell's ${children} sleeps`
        )
        const text = fs.readFileSync(`/proc/${root}/task/${root}/children`, "latin1")
        expect(text.length).toBeGreaterThan(SMALL_FILE_BYTES)
        const walked = walkSupervisedTrees([root])
        expect([...descendantsOf(root, walked)].sort()).toEqual([...descendantsOf(root, full)].sort())
      })
  )

  // Kernels built without CONFIG_PROC_CHILDREN fall back to the whole table (covered above).
  it.scopedLive.skipIf(!hasChildrenFiles())("reads only the supervised trees where the kernel lists children", () =>
    Effect.gen(function* () {
      const lone = yield* spawnNode(idle)
      const trees = walkSupervisedTrees([pidOf(lone)])
      expect([...trees.keys()]).toEqual([pidOf(lone)])
    })
  )
})

describe("makeTreeReader", () => {
  const sorted = (pids: ReadonlyArray<number>) => [...pids].sort((a, b) => a - b)

  /** A shell holding two sleeps (a tree of three), once both are in the process table; its pid. */
  const shellWithTwoSleeps = Effect.gen(function* () {
    const root = pidOf(yield* spawnGroup("sh", ["-c", "sleep 30 & sleep 30 & wait"]))
    yield* eventually(readProcessTable(), (table) => descendantsOf(root, table).length === 3, "the shell's two sleeps")
    return root
  })

  it.scopedLive.skipIf(!hasChildrenFiles())("walks small trees: a few files per process beat a pass over /proc", () =>
    Effect.gen(function* () {
      const root = yield* shellWithTwoSleeps
      const reader = makeTreeReader()
      for (let i = 0; i < 3; i++) {
        const trees = yield* reader.read([root])
        expect(sorted(descendantsOf(root, trees))).toEqual(sorted(descendantsOf(root, yield* readProcessTable())))
        const last = reader.last()!
        expect(last).toMatchObject({ reading: "walk", walkReads: 3 + 3 + 3 })
        expect(last.processes).toBeGreaterThanOrEqual(3)
      }
    })
  )

  it.scopedLive.skipIf(!hasChildrenFiles())(
    "reads the whole table while the trees' threads outnumber the machine's processes, and walks again when they do not",
    () =>
      Effect.gen(function* () {
        // 1,024 libuv threads (started by the first thread-pool task): walking this one process reads
        // 1,026 files, more than this machine has processes.
        const threaded = yield* spawnGroup("env", [
          "UV_THREADPOOL_SIZE=1024",
          process.execPath,
          "-e",
          `require("fs").stat("/", () => {}); ${idle}`
        ])
        const big = pidOf(threaded)
        yield* eventually(
          Effect.sync(() => readStat(big, pageSize())?.threads ?? 0),
          (threads) => threads > 1024,
          "the thread pool's threads"
        )
        const reader = makeTreeReader()
        const first = yield* reader.read([big])
        expect(reader.last()).toMatchObject({ reading: "walk" })
        expect(reader.last()!.walkReads).toBeGreaterThan(1024)
        expect([...first.keys()]).toEqual([big])
        // Once this machine's processes, recounted every 10 walks, are fewer (an earlier test's
        // 1,000 sleeps may still be dying), the reader takes the table.
        const second = yield* eventually(
          reader.read([big]),
          () => reader.last()!.reading === "table",
          "a read of the whole table"
        )
        expect(reader.last()!.processes).toBeLessThan(reader.last()!.walkReads)
        expect(second.get(big)?.threads).toBeGreaterThan(1024)
        expect(descendantsOf(big, second)).toEqual([big])
        // A small tree next: its cost, taken from the table, is below the machine's count again.
        const small = yield* spawnNode(idle)
        const lone = pidOf(small)
        yield* eventually(
          Effect.sync(() => readStat(lone, pageSize())),
          (stat) => stat !== undefined,
          "the small tree"
        )
        yield* reader.read([lone])
        expect(reader.last()).toMatchObject({ reading: "table" })
        const walked = yield* reader.read([lone])
        expect(reader.last()).toMatchObject({ reading: "walk" })
        expect([...walked.keys()]).toEqual([lone])
      })
  )

  it.scopedLive.skipIf(!hasChildrenFiles())(
    "through kept-open files: the same trees, and only the files of the last read stay open",
    () =>
      Effect.gen(function* () {
        const root = yield* shellWithTwoSleeps
        const files = yield* openProcFiles()
        const reader = makeTreeReader(files)
        for (let i = 0; i < 3; i++) {
          const trees = yield* reader.read([root])
          expect(sorted(descendantsOf(root, trees))).toEqual(sorted(descendantsOf(root, yield* readProcessTable())))
          // Three single-threaded processes: a stat and a children file each.
          expect(files.size()).toBe(6)
        }
        // One sleep killed (the shell waits on the other): its files are closed by the first read
        // that no longer finds it.
        const [killed] = descendantsOf(root, yield* readProcessTable()).filter((pid) => pid !== root)
        process.kill(killed!, "SIGKILL")
        const after = yield* eventually(
          reader.read([root]),
          (trees) => descendantsOf(root, trees).length === 2,
          "the shell with one sleep"
        )
        expect(after.has(killed!)).toBe(false)
        expect(files.size()).toBe(4)
      })
  )
})
