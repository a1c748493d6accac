import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  countProcesses,
  liveGroupMembers,
  liveGroupMembersIn,
  parseProcStat,
  type ProcStat,
  readProcessTable,
  readStartTime,
  readUptimeTicks,
  scanProcessTable
} from "../../src/monitor/procfs"
import { eventually, pidOf, spawnGroup, tempDir } from "./processes"

// Fields 3-24 of a real line, then the rest: state S, ppid 1, pgrp 4242, utime 250, stime 75,
// 1 thread, start time 123456, rss 300 pages.
const TAIL =
  "S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 1 0 123456 1000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

const stat = (fields: Partial<ProcStat> & Pick<ProcStat, "pid">): ProcStat => ({
  ppid: 1,
  pgrp: fields.pid,
  state: "S",
  utime: 0,
  stime: 0,
  startTime: 0,
  rss: 0,
  threads: 1,
  ...fields
})

describe("parseProcStat", () => {
  it("reads the fields after the command name", () => {
    expect(parseProcStat(`4242 (node) ${TAIL}`, 4096)).toStrictEqual({
      pid: 4242,
      ppid: 1,
      pgrp: 4242,
      state: "S",
      utime: 250,
      stime: 75,
      startTime: 123456,
      rss: 300 * 4096,
      threads: 1
    })
  })

  it("takes the fields after the LAST parenthesis when the name has spaces and parentheses", () => {
    for (const name of ["my app", "a) (b", "x) R 1 2 3", "((", ")"]) {
      expect(parseProcStat(`77 (${name}) ${TAIL}`, 4096)).toMatchObject({
        pid: 77,
        ppid: 1,
        pgrp: 4242,
        startTime: 123456
      })
    }
  })

  it("rejects a truncated or malformed line", () => {
    expect(parseProcStat("77 (node) S 1 2 3", 4096)).toBeUndefined()
    expect(parseProcStat("garbage", 4096)).toBeUndefined()
    expect(parseProcStat(`abc (node) ${TAIL}`, 4096)).toBeUndefined()
  })

  it.scopedLive("parses a live process whose name has spaces and parentheses", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const oddName = path.join(dir, "x) (y z")
      fs.symlinkSync(fs.realpathSync("/bin/sleep"), oddName)
      const child = yield* spawnGroup(oddName, ["30"])
      const table = yield* eventually(readProcessTable(), (t) => t.has(pidOf(child)), "the child in the table")
      expect(table.get(pidOf(child))).toMatchObject({ pid: pidOf(child), ppid: process.pid, pgrp: pidOf(child) })
    })
  )
})

describe("readProcessTable", () => {
  it.effect("holds this process with its parent, group, ticks and RSS", () =>
    Effect.gen(function* () {
      const table = yield* readProcessTable()
      const self = table.get(process.pid)
      expect(self).toBeDefined()
      expect(self?.ppid).toBe(process.ppid)
      expect(self?.state).toMatch(/^[RS]$/)
      expect(self?.rss).toBeGreaterThan(10 * 1024 * 1024)
      expect((self?.utime ?? 0) + (self?.stime ?? 0)).toBeGreaterThan(0)
      expect(table.size).toBeGreaterThan(1)
    })
  )

  it.scopedLive("counts threads: vitest's worker has several, a sleep one", () =>
    Effect.gen(function* () {
      const sleeper = yield* spawnGroup("sleep", ["30"])
      const table = yield* eventually(readProcessTable(), (t) => t.has(pidOf(sleeper)), "the sleep in the table")
      expect(table.get(process.pid)?.threads).toBeGreaterThan(1)
      expect(table.get(pidOf(sleeper))?.threads).toBe(1)
    })
  )

  it.effect("scanProcessTable counts what /proc listed; countProcesses counts it without reading a file", () =>
    Effect.sync(() => {
      const { table, entries } = scanProcessTable()
      const counted = countProcesses()
      // A process listed may exit before its stat is read, never the other way round.
      expect(entries).toBeGreaterThanOrEqual(table.size)
      expect(table.has(process.pid)).toBe(true)
      // The machine's other processes come and go between the two passes: same order of magnitude.
      expect(counted).toBeGreaterThan(1)
      expect(Math.abs(counted - entries)).toBeLessThan(Math.max(50, entries))
    })
  )

  it.effect("reads start times on the clock of /proc/uptime", () =>
    Effect.gen(function* () {
      const table = yield* readProcessTable()
      const uptime = yield* readUptimeTicks()
      expect(table.get(process.pid)?.startTime).toBeLessThanOrEqual(uptime)
    })
  )
})

describe("readStartTime", () => {
  it.effect("is stable for a pid and matches the table", () =>
    Effect.gen(function* () {
      const first = yield* readStartTime(process.pid)
      const second = yield* readStartTime(process.pid)
      const table = yield* readProcessTable()
      expect(Option.isSome(first)).toBe(true)
      expect(second).toStrictEqual(first)
      expect(Option.getOrThrow(first)).toBe(table.get(process.pid)?.startTime)
    })
  )

  it.effect("is none for a pid that does not exist", () =>
    Effect.gen(function* () {
      const pidMax = Number(fs.readFileSync("/proc/sys/kernel/pid_max", "utf8"))
      expect(yield* readStartTime(pidMax + 1)).toStrictEqual(Option.none())
    })
  )
})

describe("liveGroupMembers", () => {
  it.effect("keeps the group's processes and leaves out zombies", () =>
    Effect.gen(function* () {
      const table = new Map([
        [10, stat({ pid: 10, pgrp: 10 })],
        [11, stat({ pid: 11, ppid: 10, pgrp: 10, state: "R" })],
        [12, stat({ pid: 12, ppid: 10, pgrp: 10, state: "Z" })],
        [13, stat({ pid: 13, pgrp: 13 })]
      ])
      expect(liveGroupMembersIn(table, 10)).toStrictEqual([10, 11])
      expect(yield* liveGroupMembers(10, table)).toStrictEqual([10, 11])
      expect(yield* liveGroupMembers(99, table)).toStrictEqual([])
    })
  )

  it.scopedLive("finds a detached child's group, without the zombie it never reaps", () =>
    Effect.gen(function* () {
      // The shell forks `sleep 0` into its own group, then becomes `sleep 30`, which never waits:
      // the finished `sleep 0` stays a zombie member of the group.
      const child = yield* spawnGroup("sh", ["-c", "sleep 0 & exec sleep 30"])
      const pgid = pidOf(child)
      const table = yield* eventually(
        readProcessTable(),
        (t) => [...t.values()].some((p) => p.pgrp === pgid && p.state === "Z"),
        "a zombie in the group"
      )
      expect(yield* liveGroupMembers(pgid, table)).toStrictEqual([pgid])
      // Read live (the kernel is asked first, then /proc): the same answer.
      expect(yield* liveGroupMembers(pgid)).toStrictEqual([pgid])
    })
  )

  it.effect("answers an empty or never-used group without a table", () =>
    Effect.gen(function* () {
      const pidMax = Number(fs.readFileSync("/proc/sys/kernel/pid_max", "utf8"))
      expect(yield* liveGroupMembers(pidMax + 1)).toStrictEqual([])
      const ownGroup = (yield* readProcessTable()).get(process.pid)!.pgrp
      expect(yield* liveGroupMembers(ownGroup)).toContain(process.pid)
    })
  )

  it.scopedLive("is empty once the group is killed", () =>
    Effect.gen(function* () {
      const child = yield* spawnGroup("sh", ["-c", "sleep 30 & sleep 30; exit"])
      const pgid = pidOf(child)
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 3, "shell and both sleeps")
      process.kill(-pgid, "SIGKILL")
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 0, "an empty group")
    })
  )
})
