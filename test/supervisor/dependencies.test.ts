import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import type { ProcessStatus } from "../../src/domain/ProcessStatus"
import { CLK_TCK } from "../../src/monitor/procfs"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { eventsOf, node, startTicks } from "./helpers"

describe("depends_on", () => {
  it.live("a dependent app's process starts only after its dependency is online", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        // Listed first on purpose: the order comes from depends_on, not from the list.
        const apps = yield* definitions([
          { name: "dep-b", script: "sleep", args: ["300"], depends_on: ["dep-a"], min_uptime: "200ms" },
          { name: "dep-a", script: "sleep", args: ["300"], min_uptime: "500ms" }
        ])
        const creating = yield* Effect.fork(pm.create(apps, { baseEnv: PATH_ENV }))
        yield* eventually(
          Effect.map(pm.list(), (rows) => rows.length === 2),
          "both rows in the table"
        )
        const [rowA] = yield* pm.rowsFor("dep-a")
        const [rowB] = yield* pm.rowsFor("dep-b")
        // Each state of B, with A's status at that moment.
        const seen: Array<{
          readonly bPid: number | null
          readonly bStatus: ProcessStatus
          readonly aStatus: ProcessStatus
        }> = []
        yield* pm.changes(rowB!).pipe(
          Stream.runForEach((b) =>
            Effect.map(pm.rowState(rowA!), (a) => {
              seen.push({ bPid: b.pid, bStatus: b.status, aStatus: a.status })
            })
          ),
          Effect.forkScoped
        )
        const rows = yield* Fiber.join(creating)
        const a = rows.find((r) => r.name === "dep-a")!
        const b = rows.find((r) => r.name === "dep-b")!
        expect(a.pid).not.toBeNull()
        expect(b.pid).not.toBeNull()
        // The kernel's start times: B was spawned at least A's min_uptime after A (a dependency
        // counts once it has stayed up for its min_uptime, not as soon as it is online).
        const gapMs = ((startTicks(b.pid!) - startTicks(a.pid!)) / CLK_TCK) * 1000
        expect(gapMs).toBeGreaterThanOrEqual(500 - 1000 / CLK_TCK)
        // B never had a process while A was not online.
        yield* eventually(
          Effect.sync(() => seen.some((s) => s.bPid !== null)),
          "B's process seen"
        )
        expect(seen.filter((s) => s.bPid !== null).every((s) => s.aStatus === "online")).toBe(true)
        yield* eventually(
          Effect.map(pm.list(), (list) => list.every((r) => r.status === "online")),
          "both online"
        )
      })
    )
  )

  it.live("rows waiting for their dependencies show starting with no pid", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "slow-base", script: "sleep", args: ["300"], min_uptime: "3s" },
          { name: "waiter", script: "sleep", args: ["300"], depends_on: ["slow-base"], instances: 2 }
        ])
        const creating = yield* Effect.fork(pm.create(apps, { baseEnv: PATH_ENV }))
        yield* eventually(
          Effect.map(pm.list(), (rows) => rows.length === 3 && rows[0]!.pid !== null),
          "the dependency spawned"
        )
        // While slow-base (online at once) serves out its min_uptime, the waiting rows say so (docs/decisions.md).
        yield* eventually(
          Effect.map(pm.resolve("waiter"), (rows) => rows.every((r) => r.status === "starting" && r.pid === null)),
          "the waiting rows shown as starting",
          2_000
        )
        expect((yield* pm.get("slow-base")).status).toBe("online")
        yield* Fiber.join(creating)
        const waiting = yield* pm.resolve("waiter")
        expect(waiting.every((r) => r.pid !== null)).toBe(true)
      })
    )
  )

  it.live("a dependency that ends errored fails the dependent's start with PROCESS_START_FAILED", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "base", script: node, args: ["-e", "process.exit(3)"], max_restarts: 0 },
          { name: "needs-base", script: "sleep", args: ["300"], depends_on: ["base"] }
        ])
        const error = yield* Effect.flip(pm.create(apps, { baseEnv: PATH_ENV }))
        expect(error._tag).toBe("PROCESS_START_FAILED")
        if (error._tag !== "PROCESS_START_FAILED") return
        expect(error.details.process_id).toBe("needs-base")
        expect(error.details.reason).toContain("base")
        expect(error.details.reason).toContain("errored")
        const rows = yield* pm.list()
        expect(rows.map((r) => [r.name, r.status, r.pid])).toEqual([
          ["base", "errored", null],
          ["needs-base", "errored", null]
        ])
        // The dependent was never spawned: none of its status events carries a pid, and it ends errored.
        yield* eventually(
          Effect.sync(() => eventsOf(events, "ProcessStatus", "needs-base").some((e) => e.status === "errored")),
          "the dependent's errored event"
        )
        const changes = eventsOf(events, "ProcessStatus", "needs-base")
        expect(changes.every((e) => e.pid === null)).toBe(true)
        expect(changes.map((e) => e.status).filter((s) => s !== "starting")).toEqual(["errored"])
      })
    )
  )

  it.live("start all and restart all go level by level: an app with no dependency does not wait for another's", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        // In dependency order one after another, `alone` (last) would start after `needs-base`,
        // which waits out base's min_uptime; by level it starts with `base`.
        const apps = yield* definitions([
          { name: "needs-base", script: "sleep", args: ["300"], depends_on: ["base"] },
          { name: "base", script: "sleep", args: ["300"], min_uptime: "1500ms" },
          { name: "alone", script: "sleep", args: ["300"] }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        /** How long after `alone`'s process `needs-base`'s was spawned (the kernel's start times). */
        const gapMs = Effect.gen(function* () {
          const rows = yield* pm.list()
          const pidOf = (name: string) => rows.find((row) => row.name === name)!.pid!
          return ((startTicks(pidOf("needs-base")) - startTicks(pidOf("alone"))) / CLK_TCK) * 1000
        })
        expect(yield* gapMs).toBeGreaterThanOrEqual(1000)

        yield* pm.stop("all")
        yield* pm.start("all")
        expect(yield* gapMs).toBeGreaterThanOrEqual(1000)

        const events = yield* recordEvents()
        const rows = yield* pm.restart("all")
        // Reported in dependency order, whatever order they finished in.
        expect(rows.map((row) => row.name)).toEqual(["base", "needs-base", "alone"])
        expect(yield* gapMs).toBeGreaterThanOrEqual(1000)
        const restarted = eventsOf(events, "ProcessRestart").map((event) => event.name)
        expect(restarted.indexOf("alone")).toBeLessThan(restarted.indexOf("needs-base"))
      })
    )
  )

  it.live("restart all: an app that cannot start again leaves no other app of its level stopped half-way", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const gone = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-gone-"))
        const level = ["one", "two", "three"]
        const apps = yield* definitions([
          { name: "lost", script: "sleep", args: ["300"], cwd: gone },
          ...level.map((name) => ({ name, script: "sleep", args: ["300"] })),
          { name: "later", script: "sleep", args: ["300"], depends_on: ["one"] }
        ])
        yield* pm.create(apps, { baseEnv: PATH_ENV })
        const before = new Map((yield* pm.list()).map((row) => [row.name, row.pid]))
        fs.rmSync(gone, { recursive: true })

        const failure = yield* Effect.flip(pm.restart("all"))
        expect(failure._tag).toBe("FILE_ERROR")
        // The others of lost's level were restarted to the end: online, with new processes.
        yield* eventually(
          Effect.map(pm.list(), (rows) =>
            level.every((name) => {
              const row = rows.find((candidate) => candidate.name === name)
              return row?.status === "online" && row.pid !== before.get(name)
            })
          ),
          "the level's other apps online again"
        )
        const rows = yield* pm.list()
        expect(rows.filter((row) => row.status === "stopping").map((row) => row.name)).toEqual([])
        // The level after it was not reached: `later` still runs its first process.
        expect(rows.find((row) => row.name === "later")?.pid).toBe(before.get("later"))
      })
    )
  )
})
