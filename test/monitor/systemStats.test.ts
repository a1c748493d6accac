import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import { makeSystemStatsReader, SystemStats, SystemStatsReader } from "../../src/monitor/systemStats"

describe("readSystemStats", () => {
  it.live("reports sane host figures that match the schema", () =>
    Effect.gen(function* () {
      const reader = yield* makeSystemStatsReader()
      const stats = yield* reader.readSystemStats(os.tmpdir())
      expect(Schema.decodeUnknownEither(SystemStats)(stats)._tag).toBe("Right")

      expect(stats.cpu.cores).toBeGreaterThanOrEqual(1)
      expect(stats.cpu.usage_percent).toBeGreaterThanOrEqual(0)
      expect(stats.cpu.usage_percent).toBeLessThanOrEqual(100)
      expect(stats.cpu.load_average).toHaveLength(3)

      expect(stats.memory.total).toBeGreaterThan(stats.memory.available)
      expect(stats.memory.available).toBeGreaterThan(0)
      expect(stats.memory.used).toBe(stats.memory.total - stats.memory.available)
      expect(stats.memory.total).toBe(os.totalmem())

      expect(stats.disk.path).toBe(os.tmpdir())
      expect(stats.disk.total).toBeGreaterThan(0)
      expect(stats.disk.total).toBeGreaterThanOrEqual(stats.disk.available)
      expect(stats.disk.usage_percent).toBeGreaterThanOrEqual(0)
      expect(stats.disk.usage_percent).toBeLessThanOrEqual(100)

      const external = stats.network.interfaces.filter((nic) => nic.name !== "lo")
      expect(stats.network.rx_bytes).toBe(external.reduce((sum, nic) => sum + nic.rx_bytes, 0))
      expect(stats.network.tx_bytes).toBe(external.reduce((sum, nic) => sum + nic.tx_bytes, 0))

      expect(new Date(stats.timestamp).toISOString()).toBe(stats.timestamp)
      expect(Math.abs(Date.parse(stats.timestamp) - Date.now())).toBeLessThan(60_000)
    })
  )

  it.live("measures CPU usage between calls", () =>
    Effect.gen(function* () {
      const reader = yield* makeSystemStatsReader()
      yield* reader.readSystemStats("/")
      // Keep this process busy for a while so the window is wide enough and not idle.
      const until = Date.now() + 700
      while (Date.now() < until) {
        // busy
      }
      const stats = yield* reader.readSystemStats("/")
      expect(stats.cpu.usage_percent).toBeGreaterThan(0)
      expect(stats.cpu.usage_percent).toBeLessThanOrEqual(100)
    })
  )

  it.live("fails with DiskStatsError on a missing disk path", () =>
    Effect.gen(function* () {
      const reader = yield* makeSystemStatsReader()
      const missing = path.join(os.tmpdir(), "pmfx-no-such-folder", "x")
      const error = yield* Effect.flip(reader.readSystemStats(missing))
      expect(error._tag).toBe("DiskStatsError")
      expect(error.path).toBe(missing)
      expect(error.reason).toContain("ENOENT")
    })
  )

  it.live("is provided as the pmfx/SystemStatsReader service", () =>
    Effect.gen(function* () {
      const reader = yield* SystemStatsReader
      const stats = yield* reader.readSystemStats("/")
      expect(stats.disk.path).toBe("/")
    }).pipe(Effect.provide(SystemStatsReader.Default))
  )
})
