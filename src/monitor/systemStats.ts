/**
 * Host statistics of `GET /api/system/stats` (docs/api.md): CPU from `/proc/stat`, memory from
 * `/proc/meminfo`, disk from `statfs`, network from `/proc/net/dev`.
 *
 * CPU usage is a rate, so the reader remembers the previous `/proc/stat` counters and reports usage
 * since its previous call; the first call reports the average since boot.
 */
import { Clock, Data, Effect, Schema } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import { CLK_TCK } from "./procfs"

const Bytes = Schema.Int.pipe(Schema.nonNegative()).annotations({ description: "bytes" })
const Percent = Schema.Number.annotations({ description: "percent, one decimal" })

export const NetworkInterfaceStats = Schema.Struct({ name: Schema.String, rx_bytes: Bytes, tx_bytes: Bytes })
export type NetworkInterfaceStats = typeof NetworkInterfaceStats.Type

export const SystemStats = Schema.Struct({
  cpu: Schema.Struct({
    /** Busy share of all cores together (0-100). */
    usage_percent: Percent,
    cores: Schema.Int.pipe(Schema.positive()),
    /** 1, 5 and 15 minutes. */
    load_average: Schema.Tuple(Schema.Number, Schema.Number, Schema.Number)
  }),
  memory: Schema.Struct({
    total: Bytes,
    /** What can be allocated without swapping (`MemAvailable`), not just free memory. */
    available: Bytes,
    used: Bytes,
    usage_percent: Percent
  }),
  disk: Schema.Struct({
    path: Schema.String,
    total: Bytes,
    /** Available to unprivileged users, as `df` shows. */
    available: Bytes,
    used: Bytes,
    usage_percent: Percent
  }),
  network: Schema.Struct({
    /** Totals over every interface except loopback. */
    rx_bytes: Bytes,
    tx_bytes: Bytes,
    interfaces: Schema.Array(NetworkInterfaceStats)
  }),
  /** ISO 8601 UTC. */
  timestamp: Schema.String
}).annotations({ identifier: "SystemStats" })
export type SystemStats = typeof SystemStats.Type

/** `statfs` failed on the disk path (missing, or not readable). */
export class DiskStatsError extends Data.TaggedError("DiskStatsError")<{
  readonly path: string
  readonly reason: string
}> {}

const percent = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0)

interface CpuTimes {
  readonly busy: number
  readonly total: number
  readonly cores: number
}

/** Aggregate `cpu` line: user nice system idle iowait irq softirq steal (guest time is inside user). */
const parseCpuTimes = (procStat: string): CpuTimes => {
  const lines = procStat.split("\n")
  const times = (lines[0] ?? "").trim().split(/\s+/).slice(1, 9).map(Number)
  const total = times.reduce((sum, value) => sum + value, 0)
  const idle = (times[3] ?? 0) + (times[4] ?? 0)
  const cores = lines.filter((line) => /^cpu\d+ /.test(line)).length
  return { busy: total - idle, total, cores: cores > 0 ? cores : os.cpus().length }
}

const parseMemory = (meminfo: string): SystemStats["memory"] => {
  const kilobytes = new Map<string, number>()
  for (const [, name = "", value] of meminfo.matchAll(/^(\w+):\s+(\d+)/gm)) kilobytes.set(name, Number(value))
  const field = (name: string): number => (kilobytes.get(name) ?? 0) * 1024
  const total = field("MemTotal")
  // MemAvailable exists since Linux 3.14; before, free + buffers + page cache is the usual estimate.
  const available = kilobytes.has("MemAvailable")
    ? field("MemAvailable")
    : field("MemFree") + field("Buffers") + field("Cached")
  const used = Math.max(0, total - available)
  return { total, available, used, usage_percent: percent(used, total) }
}

/** `/proc/net/dev`: two header lines, then `name: rx_bytes <7 more rx fields> tx_bytes ...`. */
const parseNetwork = (netDev: string): SystemStats["network"] => {
  const interfaces: Array<NetworkInterfaceStats> = []
  for (const line of netDev.split("\n").slice(2)) {
    const colon = line.indexOf(":")
    if (colon < 0) continue
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number)
    interfaces.push({ name: line.slice(0, colon).trim(), rx_bytes: fields[0] ?? 0, tx_bytes: fields[8] ?? 0 })
  }
  const external = interfaces.filter((nic) => nic.name !== "lo")
  return {
    rx_bytes: external.reduce((sum, nic) => sum + nic.rx_bytes, 0),
    tx_bytes: external.reduce((sum, nic) => sum + nic.tx_bytes, 0),
    interfaces
  }
}

const readDisk = (path: string): Effect.Effect<SystemStats["disk"], DiskStatsError> =>
  Effect.tryPromise({
    try: () => fs.promises.statfs(path),
    catch: (error) => new DiskStatsError({ path, reason: error instanceof Error ? error.message : String(error) })
  }).pipe(
    Effect.map((stats) => {
      const total = stats.blocks * stats.bsize
      const available = stats.bavail * stats.bsize
      const used = (stats.blocks - stats.bfree) * stats.bsize
      // As `df`: blocks reserved for root count neither as used nor as available.
      return { path, total, available, used, usage_percent: percent(used, used + available) }
    })
  )

/** Half a second of every core, in `/proc/stat`'s clock ticks. */
const MIN_WINDOW_TICKS_PER_CORE = CLK_TCK / 2

const round2 = (value: number): number => Math.round(value * 100) / 100

export interface SystemStatsReaderShape {
  /** Host statistics, with the disk that holds `diskPath` (pmfx passes its home folder). */
  readonly readSystemStats: (diskPath: string) => Effect.Effect<SystemStats, DiskStatsError>
}

export const makeSystemStatsReader = (): Effect.Effect<SystemStatsReaderShape> =>
  Effect.sync(() => {
    // Zero counters: the first reading is the average since boot.
    let baseline: CpuTimes = { busy: 0, total: 0, cores: 0 }
    let usage = 0

    const readCpu = Effect.sync((): SystemStats["cpu"] => {
      const now = parseCpuTimes(fs.readFileSync("/proc/stat", "latin1"))
      // Calls closer than ~half a second (two clients polling) would measure a few ticks of noise:
      // they get the last usage, and the baseline stays until the window is wide enough.
      if (now.total - baseline.total >= MIN_WINDOW_TICKS_PER_CORE * now.cores) {
        usage = percent(now.busy - baseline.busy, now.total - baseline.total)
        baseline = now
      }
      const [one = 0, five = 0, fifteen = 0] = os.loadavg()
      return { usage_percent: usage, cores: now.cores, load_average: [round2(one), round2(five), round2(fifteen)] }
    })

    const readSystemStats = (diskPath: string) =>
      Effect.all({
        cpu: readCpu,
        memory: Effect.sync(() => parseMemory(fs.readFileSync("/proc/meminfo", "latin1"))),
        disk: readDisk(diskPath),
        network: Effect.sync(() => parseNetwork(fs.readFileSync("/proc/net/dev", "latin1"))),
        timestamp: Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())
      })

    return { readSystemStats }
  })

/** The daemon's reader: one CPU baseline shared by every caller of the stats endpoint. */
export class SystemStatsReader extends Effect.Service<SystemStatsReader>()("pmfx/SystemStatsReader", {
  effect: makeSystemStatsReader()
}) {}
