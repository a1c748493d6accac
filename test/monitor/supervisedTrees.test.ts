import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { readProcessTable, SMALL_FILE_BYTES } from "../../src/monitor/procfs"
import { descendantsOf } from "../../src/monitor/processTree"
import { hasChildrenFiles, readSupervisedTrees, walkSupervisedTrees } from "../../src/monitor/supervisedTrees"
import { eventually, pidOf, spawnGroup, spawnNode } from "./processes"

const idle = "setInterval(() => {}, 1000)"

describe("readSupervisedTrees", () => {
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
      const trees = yield* readSupervisedTrees(roots)
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
      const trees = yield* readSupervisedTrees([pid])
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
