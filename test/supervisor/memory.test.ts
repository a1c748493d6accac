import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { liveGroupMembers } from "../../src/monitor/procfs"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, recordEvents, withEngine } from "../support/engine"
import { awaitEvent, eventsOf, node } from "./helpers"

const LIMIT = 60 * 1024 * 1024

/** Resident memory of one process (not its tree), bytes. */
const ownRss = (pid: number): number => {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))
  return match === null ? 0 : Number(match[1]) * 1024
}

describe("max_memory_restart", () => {
  it.live("a child that grows past the limit is restarted with reason memory", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        const apps = yield* definitions([
          { name: "hungry", script: fixture("grow-memory.js"), max_memory_restart: "60M" }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const restart = yield* awaitEvent(
          events,
          "ProcessRestart",
          (e) => e.name === "hungry",
          "a restart after the memory limit"
        )
        expect(restart).toMatchObject({ id: row!.id, reason: "memory", restarts: 1 })
        expect((yield* pm.get("hungry")).restarts).toBeGreaterThanOrEqual(1)
        const limits = eventsOf(events, "MemoryLimit", "hungry")
        expect(limits.length).toBeGreaterThanOrEqual(1)
        expect(limits[0]).toMatchObject({ id: row!.id, instance: 0, limit: LIMIT })
        expect(limits[0]!.memory).toBeGreaterThan(LIMIT)
        // It was restarted by pmfx, not because it crashed.
        expect(eventsOf(events, "ProcessExit", "hungry")).toEqual([])
        yield* eventually(
          Effect.map(pm.get("hungry"), (d) => d.pid !== null && d.pid !== row!.pid),
          "a new process"
        )
      })
    )
  )

  it.live("memory held by a grandchild under an sh -c wrapper counts for the row", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const events = yield* recordEvents()
        // The trailing `exit` keeps sh from exec-ing node in its own place: sh stays the (tiny) leader.
        const apps = yield* definitions([
          {
            name: "wrapped",
            script: "sh",
            args: ["-c", `"${node}" "${fixture("grow-memory.js")}"; exit $?`],
            max_memory_restart: "60M"
          }
        ])
        const [row] = yield* pm.create(apps, { baseEnv: PATH_ENV })
        const leader = row!.pid!
        yield* eventually(
          Effect.map(liveGroupMembers(leader), (members) => members.length >= 2),
          "sh and its node child"
        )
        expect(fs.readFileSync(`/proc/${leader}/comm`, "utf8").trim()).toBe("sh")
        expect(ownRss(leader)).toBeLessThan(LIMIT)
        const restart = yield* awaitEvent(
          events,
          "ProcessRestart",
          (e) => e.name === "wrapped",
          "a restart after the tree's memory passed the limit"
        )
        expect(restart).toMatchObject({ id: row!.id, reason: "memory", restarts: 1 })
        expect((yield* pm.get("wrapped")).restarts).toBeGreaterThanOrEqual(1)
        const limits = eventsOf(events, "MemoryLimit", "wrapped")
        expect(limits.length).toBeGreaterThanOrEqual(1)
        expect(limits[0]!.memory).toBeGreaterThan(LIMIT)
      })
    )
  )
})
