/**
 * Fault suite: half-open connections (docs/api.md, "Connection limits"). A daemon with the default
 * limits runs under an open-file limit of 256 (`prlimit --nofile=256`, util-linux); 500 connections
 * that send part of a request head and then nothing are opened to its unix socket and 500 to its TCP
 * listener, while other requests are timed on both. Every half-open connection must be closed
 * within the header timeout (plus the check tick), every timed request must be answered, and the
 * figures are printed for docs/reliability.md.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { type Daemon, httpRequest, startDaemon } from "../api/daemon"
import { freeListenerPort, openWeb } from "../api/tcp"

const FD_LIMIT = 256
const HALF_OPEN_PER_LISTENER = 500
/** The default header timeout (10 s), the 1 s check tick, and generous slack for a loaded machine. */
const CLOSED_WITHIN_MS = 10_000 + 1_000 + 9_000

const hasPrlimit = spawnSync("prlimit", ["--version"]).status === 0

interface HalfOpen {
  readonly openedAt: number
  closedAt: number | null
  received: string
  readonly socket: net.Socket
}

const openHalf = (target: { readonly path: string } | { readonly port: number }): Promise<HalfOpen> =>
  new Promise((resolve) => {
    const socket = "path" in target ? net.connect(target.path) : net.connect(target.port, "localhost")
    const connection: HalfOpen = { openedAt: Date.now(), closedAt: null, received: "", socket }
    socket.on("data", (chunk: Buffer) => (connection.received += chunk.toString("latin1")))
    socket.on("close", () => (connection.closedAt = Date.now()))
    socket.on("error", () => undefined)
    socket.once("connect", () => socket.write("GET /api/processes HTTP/1.1\r\nHost: localhost\r\nX-Half: "))
    // Resolved at once: a connection the daemon displaced or refused is still one of the flood.
    resolve(connection)
  })

const percentile = (values: ReadonlyArray<number>, p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
}

let daemon: Daemon
let port: number
describe.skipIf(!hasPrlimit)("half-open connections (needs prlimit from util-linux)", () => {
  beforeAll(async () => {
    daemon = await startDaemon(undefined, { wrapper: ["prlimit", `--nofile=${FD_LIMIT}:${FD_LIMIT}`, "--"] })
    port = await freeListenerPort()
    await openWeb(daemon, { port })
  })
  afterAll(async () => {
    await daemon?.stop()
  })

  it(`closes ${HALF_OPEN_PER_LISTENER} half-open requests per listener within the header timeout and answers throughout, under an fd limit of ${FD_LIMIT}`, async () => {
    expect(fs.readFileSync(`/proc/${daemon.pid}/limits`, "utf8")).toMatch(
      new RegExp(`Max open files\\s+${FD_LIMIT}\\s+${FD_LIMIT}`)
    )
    const started = Date.now()
    const timings: Array<{
      readonly via: string
      readonly ms: number
      readonly status: number
      readonly error?: string
    }> = []
    let flooding = true
    const timeRequests = async (via: "socket" | "tcp") => {
      while (flooding) {
        const begin = performance.now()
        const reply = await httpRequest(
          via === "socket" ? { socketPath: daemon.socket } : { host: "localhost", port },
          "GET",
          "/api/processes",
          undefined,
          via === "socket" ? {} : { host: `localhost:${port}` },
          { timeoutMs: 15_000 }
        ).catch((error: Error) => ({
          status: 0,
          error: `${(error as NodeJS.ErrnoException).code ?? ""} ${error.message}`
        }))
        timings.push({
          via,
          ms: performance.now() - begin,
          status: reply.status,
          ...("error" in reply ? { error: reply.error } : {})
        })
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const timers = [timeRequests("socket"), timeRequests("tcp")]

    const flood: Array<HalfOpen> = []
    for (let i = 0; i < HALF_OPEN_PER_LISTENER; i++) {
      flood.push(await openHalf({ path: daemon.socket }))
      flood.push(await openHalf({ port }))
      // Batches of 20 per listener: as fast as a client machine opens them, without one backlog
      // of 1000 that the daemon would accept in a single turn of its event loop (see the report).
      if (i % 20 === 19) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const floodOpenedMs = Date.now() - started
    const deadline = Date.now() + CLOSED_WITHIN_MS + floodOpenedMs
    while (flood.some((connection) => connection.closedAt === null) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100))
    // A few more timed requests after the flood is gone.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    flooding = false
    await Promise.all(timers)

    const stillOpen = flood.filter((connection) => connection.closedAt === null).length
    for (const connection of flood) connection.socket.destroy()
    const lifetimes = flood
      .filter((connection) => connection.closedAt !== null)
      .map((connection) => connection.closedAt! - connection.openedAt)
    const timedOut = flood.filter((connection) => connection.received.startsWith("HTTP/1.1 408")).length
    const failed = timings.filter((timing) => timing.status !== 200)
    const ms = timings.map((timing) => timing.ms)
    const figures = {
      fd_limit: FD_LIMIT,
      half_open: flood.length,
      flood_opened_in_ms: floodOpenedMs,
      closed_with_408: timedOut,
      closed_without_answer: flood.length - timedOut - stillOpen,
      still_open_after_deadline: stillOpen,
      longest_half_open_ms: Math.max(...lifetimes),
      timed_requests: timings.length,
      failed_requests: failed.length,
      p50_ms: Math.round(percentile(ms, 50) * 10) / 10,
      p99_ms: Math.round(percentile(ms, 99) * 10) / 10,
      max_ms: Math.round(Math.max(...ms) * 10) / 10
    }
    console.log(`half-open figures: ${JSON.stringify(figures)}`)
    if (failed.length > 0) console.log(`failed: ${JSON.stringify(failed)}; daemon said: ${daemon.output()}`)
    expect(stillOpen).toBe(0)
    expect(figures.longest_half_open_ms).toBeLessThan(CLOSED_WITHIN_MS)
    expect(failed).toEqual([])
    // Generous: the figure is measured and reported; this only catches a daemon that stalled.
    expect(figures.p99_ms).toBeLessThan(2_000)
    // And it still answers, with its open-file count back to normal.
    expect((await daemon.request("GET", "/api/processes")).status).toBe(200)
    const openFiles = fs.readdirSync(`/proc/${daemon.pid}/fd`).length
    console.log(`daemon open files after the flood: ${openFiles}`)
    expect(openFiles).toBeLessThan(FD_LIMIT / 2)
  })
})

if (!hasPrlimit) {
  describe("half-open connections", () => {
    it.skip("skipped: prlimit (util-linux) is not installed, so the daemon's open-file limit cannot be lowered", () =>
      undefined)
  })
}
