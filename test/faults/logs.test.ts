/**
 * Fault suite: the log paths under hostile and heavy use (docs/api.md "grep syntax",
 * docs/configuration.md `max_log_size`).
 *
 * 1. Catastrophic regular expressions — the patterns that froze the daemon for 13 s each when
 *    `grep` was a backtracking RegExp — are fired at it over HTTP, four at a time, for 20 s, while
 *    `/health` and `GET /api/processes` are timed. Every request must be answered; the latencies of
 *    the timed requests (p50/p99/max, also without the hostile load for comparison) are printed for
 *    docs/reliability.md. Goal p99 < 200 ms; the assertion is a generous bound for a loaded machine.
 * 2. Rotation under a flood: an app writes 500,000 numbered lines flat out into a log rotated at
 *    256 KiB with gzip. Every stored line is read back from the rotated, gzipped and current files
 *    and counted: lost, duplicated, cut (not a whole `line N`) and out of order must all be 0. The
 *    reader's API gives the last 10,000 lines exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"
import { type Daemon, eventually, startDaemon } from "../api/daemon"
import { FLOOD_SCRIPT } from "../logs/helpers"

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
}
const figures = (values: ReadonlyArray<number>) =>
  `n=${values.length} p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, max ${Math.max(...values).toFixed(1)} ms`

let daemon: Daemon
beforeAll(async () => {
  daemon = await startDaemon()
})
afterAll(async () => {
  await daemon?.stop()
})

/** Times `/health` and `GET /api/processes` one after the other, every 10 ms, while `running()`. */
const timeOthers = async (
  running: () => boolean
): Promise<{ readonly ms: Array<number>; readonly failures: Array<string> }> => {
  const ms: Array<number> = []
  const failures: Array<string> = []
  const loop = async (urlPath: string) => {
    while (running()) {
      const begin = performance.now()
      const reply = await daemon
        .request("GET", urlPath, undefined, {}, { timeoutMs: 30_000 })
        .catch((error: Error) => ({ status: 0, body: error.message }))
      ms.push(performance.now() - begin)
      if (reply.status !== 200) failures.push(`${urlPath}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }
  await Promise.all([loop("/health"), loop("/api/processes")])
  return { ms, failures }
}

describe("catastrophic grep patterns under load", () => {
  it("answers every hostile query and every other request meanwhile; p99 of the others is reported", async () => {
    // Lines on which a backtracking engine explodes: runs of a's that end in a character the pattern refuses.
    const lines = [
      "a".repeat(32),
      `${"a".repeat(27)}!`,
      `${"a".repeat(5000)}!`,
      `${"ab".repeat(2000)}c`,
      "x".repeat(100)
    ]
    const print = `for (const line of ${JSON.stringify(lines)}) console.log(line); setInterval(() => {}, 1000)`
    const created = await daemon.request("POST", "/api/processes", {
      name: "hostile",
      script: process.execPath,
      args: ["-e", print]
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    await eventually(
      async () =>
        (await daemon.request("GET", "/api/processes/hostile/logs")).body.entries.length === lines.length
          ? true
          : undefined,
      "the app's lines"
    )

    // Baseline: the same timed requests with nothing else going on.
    const baselineEnd = Date.now() + 5_000
    const baseline = await timeOthers(() => Date.now() < baselineEnd)

    const hostile = [
      "^(a|a)*$",
      "^(a|a?)+$",
      "^(a+)+$",
      "(a|aa)+$",
      "^(([a-z])+.)+[A-Z]([a-z])+$",
      "(a*)*b",
      "(.*a){20}$",
      "((ab)*|a)*c$",
      "/^(A|A)*$/i"
    ]
    const hostileMs: Array<number> = []
    const hostileFailures: Array<string> = []
    const floodEnd = Date.now() + 20_000
    let sent = 0
    const fire = async () => {
      while (Date.now() < floodEnd) {
        const grep = hostile[sent++ % hostile.length]!
        const begin = performance.now()
        const reply = await daemon
          .request(
            "GET",
            `/api/processes/hostile/logs?grep=${encodeURIComponent(grep)}`,
            undefined,
            {},
            { timeoutMs: 30_000 }
          )
          .catch((error: Error) => ({ status: 0, body: error.message }))
        hostileMs.push(performance.now() - begin)
        if (reply.status !== 200)
          hostileFailures.push(`${grep}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 200)}`)
      }
    }
    const [others] = await Promise.all([timeOthers(() => Date.now() < floodEnd), fire(), fire(), fire(), fire()])

    console.info(
      `[faults/logs] load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} on ${os.availableParallelism()} CPUs`
    )
    console.info(`[faults/logs] timed requests, no hostile load: ${figures(baseline.ms)}`)
    console.info(
      `[faults/logs] timed requests during ${hostileMs.length} catastrophic greps (4 at a time, 20 s): ${figures(others.ms)}`
    )
    console.info(`[faults/logs] the catastrophic greps themselves: ${figures(hostileMs)}`)
    expect(hostileFailures).toEqual([])
    expect(others.failures).toEqual([])
    expect(baseline.failures).toEqual([])
    expect(hostileMs.length).toBeGreaterThan(100)
    // The goal is 200 ms; on a loaded 2-core machine only a stall (seconds, as before) must fail.
    expect(percentile(others.ms, 99)).toBeLessThan(2_000)
    expect((await daemon.request("DELETE", "/api/processes/hostile")).status).toBe(204)
  })
})

const FLOOD_LINES = 500_000

/** Every stored line of the app's out log, oldest file first: rotated (gzipped or not), then the current file. */
const storedLines = async (
  file: string
): Promise<{ readonly lines: Array<string>; readonly files: number; readonly gzipped: number }> => {
  const rotated = [...(await listRotatedFiles(file))].reverse()
  const lines: Array<string> = []
  for (const r of rotated) {
    const data = fs.readFileSync(r.path)
    const text = (r.compressed ? zlib.gunzipSync(data) : data).toString("utf8")
    lines.push(...text.split("\n").slice(0, -1))
  }
  if (fs.existsSync(file)) lines.push(...fs.readFileSync(file, "utf8").split("\n").slice(0, -1))
  return { lines, files: rotated.length + 1, gzipped: rotated.filter((r) => r.compressed).length }
}

describe("rotation under a flood", () => {
  it(`stores ${FLOOD_LINES.toLocaleString("en")} lines through 256 KiB rotations with gzip: 0 lost, 0 duplicated, 0 cut`, async () => {
    const started = performance.now()
    const created = await daemon.request("POST", "/api/processes", {
      name: "flood",
      script: process.execPath,
      args: ["-e", FLOOD_SCRIPT, String(FLOOD_LINES)],
      autorestart: false,
      max_log_size: "256K",
      max_log_files: 10_000,
      compress_logs: true
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const file = path.join(daemon.home, "logs", "flood-0-out.log")
    // Done when the app has exited and the last line is on disk (rotated or not).
    await eventually(
      async () => {
        const [row] = (await daemon.request("GET", "/api/processes?name=flood")).body
        if (row?.status !== "stopped") return undefined
        const current = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : ""
        if (current.includes(`line ${FLOOD_LINES - 1}\n`)) return true
        // A rotation may rename or compress a file while it is listed: ask again.
        const stored = await storedLines(file).catch(() => null)
        return stored !== null && stored.lines.length >= FLOOD_LINES ? true : undefined
      },
      "the flood to end and its last line to be stored",
      240_000
    )
    // Rotated files are gzipped after the rotation: wait until every one is (and no .gz.tmp is left).
    await eventually(
      async () =>
        (await listRotatedFiles(file)).every((r) => r.compressed) &&
        !fs.readdirSync(path.dirname(file)).some((name) => name.endsWith(".tmp")),
      "the last compression",
      60_000
    )
    const writtenMs = performance.now() - started

    const { lines, files, gzipped } = await storedLines(file)
    const seen = new Uint8Array(FLOOD_LINES)
    let cut = 0
    let duplicated = 0
    let outOfOrder = 0
    let last = -1
    for (const line of lines) {
      const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z line (\d+)$/.exec(line)
      const n = match === null ? Number.NaN : Number(match[1])
      if (!Number.isInteger(n) || n >= FLOOD_LINES) {
        cut++
        continue
      }
      if (seen[n] === 1) duplicated++
      seen[n] = 1
      if (n < last) outOfOrder++
      last = n
    }
    const lost = seen.reduce((missing, present) => missing + (present === 1 ? 0 : 1), 0)
    console.info(
      `[faults/logs] rotation flood: ${FLOOD_LINES} lines in ${(writtenMs / 1000).toFixed(1)} s through ${files} files (${gzipped} gzipped): ` +
        `${lost} lost, ${duplicated} duplicated, ${cut} cut, ${outOfOrder} out of order`
    )
    expect({ lost, duplicated, cut, outOfOrder }).toEqual({ lost: 0, duplicated: 0, cut: 0, outOfOrder: 0 })
    expect(gzipped).toBeGreaterThan(10)

    // The reader gives the same lines back across the gzipped files.
    const read = await daemon.request(
      "GET",
      "/api/processes/flood/logs?lines=10000",
      undefined,
      {},
      { timeoutMs: 60_000 }
    )
    expect(read.status).toBe(200)
    const messages = (read.body.entries as Array<{ message: string }>).map((entry) => entry.message)
    expect(messages).toEqual(Array.from({ length: 10_000 }, (_, k) => `line ${FLOOD_LINES - 10_000 + k}`))
    expect((await daemon.request("DELETE", "/api/processes/flood")).status).toBe(204)
  })
})
