import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { makeMetricsSampler, MetricsSampler } from "../../src/monitor/MetricsSampler"
import { readProcessTable } from "../../src/monitor/procfs"
import { descendantsOf } from "../../src/monitor/processTree"
import { eventually, holdMemory, pidOf, spawnGroup, spawnNode, spawnNodeUnderShell, spinCpu } from "./processes"

const MB = 1024 * 1024

describe("MetricsSampler", () => {
  it.scopedLive("counts the memory a wrapper's grandchild holds in the wrapper's tree", () =>
    Effect.gen(function* () {
      const sampler = yield* makeMetricsSampler()
      const wrapper = yield* spawnNodeUnderShell(holdMemory(50))
      const root = { key: 1, pid: pidOf(wrapper) }
      // The tree counts the shell's few MB too: it passes 50 MB a moment before the grandchild
      // alone does, so the wait is for both (the process table read right after the sample).
      const { metrics, table } = yield* eventually(
        Effect.all({
          metrics: Effect.map(sampler.sample([root]), (results) => results.get(1)),
          table: readProcessTable()
        }),
        ({ metrics, table }) =>
          (metrics?.memory_usage ?? 0) >= 50 * MB && (table.get(metrics?.pids[1] ?? 0)?.rss ?? 0) >= 50 * MB,
        "50 MB in the wrapper's tree, held by the grandchild"
      )
      expect(metrics?.pids[0]).toBe(root.pid)
      expect(metrics?.pids).toHaveLength(2)
      // The shell itself holds almost nothing: the memory is the grandchild's.
      expect(table.get(root.pid)?.rss).toBeLessThan(20 * MB)
      expect(table.get(metrics?.pids[1] ?? 0)?.rss).toBeGreaterThanOrEqual(50 * MB)
    })
  )

  it.scopedLive("reports a spinning child as busy from the second sample, never above one core", () =>
    Effect.gen(function* () {
      const sampler = yield* makeMetricsSampler()
      const spinner = yield* spawnNode(spinCpu)
      const root = { key: 7, pid: pidOf(spinner) }
      const first = yield* sampler.sample([root])
      // No interval yet: a tree that was already running reads 0.
      expect(first.get(7)?.cpu_usage).toBe(0)
      // Intervals of a few hundred ms: ticks are 10 ms, so much shorter ones would be noise.
      const cpuAfterPause = Effect.zipRight(
        Effect.sleep("300 millis"),
        Effect.map(sampler.sample([root]), (results) => results.get(7)?.cpu_usage ?? 0)
      )
      // Alone it reads ~100. The suite's own forks can saturate a 2-core machine and hold the
      // spinner to a third of a core for long stretches; an idle process reads 0, so one interval
      // above a fifth of a core is proof enough that busy reads as busy.
      yield* eventually(cpuAfterPause, (cpu) => cpu > 20, "cpu_usage above 20")
      // Past node's (multi-threaded) start-up, one spinning thread uses about one core, not one per core.
      expect(yield* cpuAfterPause).toBeLessThan(150)
    })
  )

  it.scopedLive("counts a process born since the previous sample from its start", () =>
    Effect.gen(function* () {
      const sampler = yield* makeMetricsSampler()
      // The spinner starts a second after the wrapper, so after the first sample.
      const wrapper = yield* spawnGroup("sh", ["-c", `sleep 1; "$0" -e "$1"; exit`, process.execPath, spinCpu])
      const root = { key: 5, pid: pidOf(wrapper) }
      yield* eventually(readProcessTable(), (table) => descendantsOf(root.pid, table).length === 2, "the shell's sleep")
      const firstAt = yield* Clock.currentTimeMillis
      const first = yield* sampler.sample([root])
      expect(first.get(5)?.cpu_usage).toBe(0)
      // Wait until the spinner has run ~0.3 s of CPU (30 ticks), then sample once.
      yield* eventually(
        readProcessTable(),
        (table) => {
          const spinner = [...table.values()].find((p) => p.ppid === root.pid && p.utime + p.stime >= 30)
          return spinner !== undefined
        },
        "the spinner to have run"
      )
      const second = yield* sampler.sample([root])
      const elapsedMs = (yield* Clock.currentTimeMillis) - firstAt
      // Counted from zero, not from an unknown baseline: at least 0.3 s of CPU over an interval no
      // longer than the test's own (how long that is depends on the machine's load).
      expect(second.get(5)?.cpu_usage).toBeGreaterThanOrEqual(Math.floor((300 / elapsedMs) * 100) - 1)
    })
  )

  it.scopedLive("reads an idle child near 0", () =>
    Effect.gen(function* () {
      const sampler = yield* makeMetricsSampler()
      const idle = yield* spawnGroup("sleep", ["30"])
      const root = { key: 3, pid: pidOf(idle) }
      yield* sampler.sample([root])
      yield* Effect.sleep("300 millis")
      const second = yield* sampler.sample([root])
      expect(second.get(3)?.cpu_usage).toBeLessThan(5)
      expect(second.get(3)?.memory_usage).toBeGreaterThan(0)
    })
  )

  it.scopedLive("gives zeros and no pids for a root that has exited, and keys every root", () =>
    Effect.gen(function* () {
      const sampler = yield* makeMetricsSampler()
      // Above PID_MAX_LIMIT (2^22): no process can have it.
      const impossiblePid = 4_194_305
      const results = yield* sampler.sample([
        { key: 1, pid: impossiblePid },
        { key: 2, pid: process.pid }
      ])
      expect(results.get(1)).toStrictEqual({ cpu_usage: 0, memory_usage: 0, pids: [], startTimes: [] })
      expect(results.get(2)?.pids[0]).toBe(process.pid)
      expect(results.get(2)?.memory_usage).toBeGreaterThan(0)
    })
  )

  it.scopedLive("is provided as the pmfx/MetricsSampler service", () =>
    Effect.gen(function* () {
      const sampler = yield* MetricsSampler
      const results = yield* sampler.sample([{ key: 0, pid: process.pid }])
      expect(results.get(0)?.pids).toContain(process.pid)
    }).pipe(Effect.provide(MetricsSampler.Default))
  )
})
