/**
 * `GET /metrics` (docs/metrics.md) on the daemon's socket and its TCP listener, read with a real
 * Prometheus text-format parser (test/support/prometheus.ts): every family valid, each instance's
 * figures equal to what `GET /api/processes` (pmfx list) says, the status and health one-hot, the
 * log counters exact for an app that writes known lines, and the daemon's own families: requests
 * by route template and status, open WebSockets, CPU, RSS, event-loop lag.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { connectWs, type WsClient } from "../support/wsClient"
import { parseExposition, type Exposition } from "../support/prometheus"
import { type Daemon, eventually, idleApp, startDaemon } from "./daemon"
import { freeListenerPort, openWeb, tcp } from "./tcp"

const TRICKY = 'say "hi" \\ café ✓'
const CHATTY_OUT = "x".repeat(10) + "\n"
/** Writes 4 lines (44 bytes) to stdout and 3 lines (9 bytes) to stderr, then idles. */
const chatty = {
  name: "chatty",
  script: process.execPath,
  args: [
    "-e",
    `process.stdout.write(${JSON.stringify(CHATTY_OUT.repeat(4))}); process.stderr.write("e1\\ne2\\ne3\\n"); setInterval(() => {}, 1000)`
  ]
}

const daemons: Array<Daemon> = []
const clients: Array<WsClient> = []
afterAll(async () => {
  for (const client of clients) client.close()
  for (const daemon of daemons) await daemon.stop()
})

const PROCESS_GAUGES = ["pmfx_process_cpu_percent", "pmfx_process_memory_bytes", "pmfx_process_uptime_seconds"]
const PROCESS_COUNTERS = ["pmfx_process_restarts_total", "pmfx_process_errors_total"]
const STATUSES = ["starting", "online", "stopping", "stopped", "restarting", "errored"]
const HEALTHS = ["healthy", "unhealthy", "unknown", "none"]

interface ListRow {
  readonly name: string
  readonly namespace: string
  readonly instance: number
  readonly status: string
  readonly cpu_usage: number
  readonly memory_usage: number
  readonly uptime: string
  readonly restarts: number
  readonly health_status: string
}

const scrape = async (daemon: Daemon): Promise<Exposition> => {
  const reply = await daemon.request("GET", "/metrics")
  expect(reply.status, reply.raw).toBe(200)
  expect(reply.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8")
  return parseExposition(reply.raw)
}

const list = async (daemon: Daemon): Promise<ReadonlyArray<ListRow>> => {
  const reply = await daemon.request("GET", "/api/processes")
  expect(reply.status, reply.raw).toBe(200)
  return reply.body as ReadonlyArray<ListRow>
}

const seconds = (uptime: string): number => {
  const [, h, m, s] = /^(\d+)h (\d+)m (\d+)s$/.exec(uptime)!
  return Number(h) * 3600 + Number(m) * 60 + Number(s)
}

/**
 * A scrape between two lists that agree (the sampler updates every row each second; a sample
 * landing between the reads would make them disagree): the values the scrape must show.
 */
const consistentScrape = (daemon: Daemon) =>
  eventually(async () => {
    const before = await list(daemon)
    const exposition = await scrape(daemon)
    const after = await list(daemon)
    const strip = (rows: ReadonlyArray<ListRow>) => JSON.stringify(rows.map(({ uptime: _uptime, ...rest }) => rest))
    return strip(before) === strip(after) ? { before, after, exposition } : undefined
  }, "two lists that agree around a scrape")

const labelsOf = (row: ListRow) => ({ name: row.name, namespace: row.namespace, instance: String(row.instance) })

describe("GET /metrics on the socket", () => {
  it("is a valid exposition whose figures are those of GET /api/processes, one series per instance", async () => {
    const daemon = await startDaemon()
    daemons.push(daemon)
    const apps = [idleApp("web", { instances: 2, namespace: "shop" }), idleApp(TRICKY), chatty, idleApp("parked")]
    for (const app of apps) {
      const created = await daemon.request("POST", "/api/processes", app)
      expect(created.status, created.raw).toBe(201)
    }
    for (const name of ["web", encodeURIComponent(TRICKY), "chatty", "parked"]) {
      expect((await daemon.request("GET", `/api/processes/${name}/ready?timeout=30s`)).status).toBe(200)
    }
    expect((await daemon.request("POST", "/api/processes/parked/stop")).status).toBe(200)
    expect((await daemon.request("POST", "/api/processes/web/restart")).status).toBe(200)
    expect((await daemon.request("GET", "/api/processes/web/ready?timeout=30s")).status).toBe(200)
    // Memory is sampled each second: wait until every running row has its first sample.
    await eventually(
      async () => (await list(daemon)).every((row) => row.status !== "online" || row.memory_usage > 0),
      "a memory sample of every online row"
    )

    const { before, after, exposition } = await consistentScrape(daemon)
    expect(before).toHaveLength(5)
    for (const name of [...PROCESS_GAUGES, ...PROCESS_COUNTERS, "pmfx_process_status", "pmfx_process_health_status"]) {
      expect(exposition.families.get(name)?.type, name).toBe(name.endsWith("_total") ? "counter" : "gauge")
    }
    for (const name of [...PROCESS_GAUGES, ...PROCESS_COUNTERS])
      expect(exposition.series(name), name).toHaveLength(before.length)
    expect(exposition.series("pmfx_process_status")).toHaveLength(before.length * STATUSES.length)
    expect(exposition.series("pmfx_process_health_status")).toHaveLength(before.length * HEALTHS.length)

    for (const [i, row] of before.entries()) {
      const labels = labelsOf(row)
      const what = JSON.stringify(labels)
      expect(exposition.value("pmfx_process_cpu_percent", labels), what).toBe(row.cpu_usage)
      expect(exposition.value("pmfx_process_memory_bytes", labels), what).toBe(row.memory_usage)
      expect(exposition.value("pmfx_process_restarts_total", labels), what).toBe(row.restarts)
      const uptime = exposition.value("pmfx_process_uptime_seconds", labels)
      expect(Math.floor(uptime), what).toBeGreaterThanOrEqual(seconds(row.uptime))
      expect(uptime, what).toBeLessThan(seconds(after[i]!.uptime) + 1)
      // One-hot: exactly the row's status (and health) is 1, and the family sums to 1 per instance.
      const statuses = exposition.series("pmfx_process_status", labels)
      expect(statuses.map((s) => s.labels["status"]).sort(), what).toEqual([...STATUSES].sort())
      expect(
        statuses.reduce((sum, s) => sum + s.value, 0),
        what
      ).toBe(1)
      expect(exposition.value("pmfx_process_status", { ...labels, status: row.status }), what).toBe(1)
      const healths = exposition.series("pmfx_process_health_status", labels)
      expect(
        healths.reduce((sum, s) => sum + s.value, 0),
        what
      ).toBe(1)
      expect(exposition.value("pmfx_process_health_status", { ...labels, health: row.health_status }), what).toBe(1)
    }
    const parked = before.find((row) => row.name === "parked")!
    expect(parked.status).toBe("stopped")
    expect(exposition.value("pmfx_process_uptime_seconds", labelsOf(parked))).toBe(0)
    expect(before.filter((row) => row.name === "web").map((row) => row.restarts)).toEqual([1, 1])
    // The name with quotes, a backslash and unicode comes back exactly through the escaping.
    expect(
      exposition.value("pmfx_process_status", { name: TRICKY, namespace: "default", instance: "0", status: "online" })
    ).toBe(1)
    expect(
      exposition.value("pmfx_process_status", { name: "web", namespace: "shop", instance: "1", status: "online" })
    ).toBe(1)
  })

  it("counts each instance's log lines and bytes per stream, exactly", async () => {
    const daemon = daemons[0]!
    const chattyLabels = { name: "chatty", namespace: "default", instance: "0" }
    const exposition = await eventually(async () => {
      const scraped = await scrape(daemon)
      return scraped.value("pmfx_process_log_lines_total", { ...chattyLabels, stream: "out" }) === 4 &&
        scraped.value("pmfx_process_log_lines_total", { ...chattyLabels, stream: "err" }) === 3
        ? scraped
        : undefined
    }, "chatty's 4 + 3 lines counted")
    expect(exposition.value("pmfx_process_log_bytes_total", { ...chattyLabels, stream: "out" })).toBe(44)
    expect(exposition.value("pmfx_process_log_bytes_total", { ...chattyLabels, stream: "err" })).toBe(9)
    expect(exposition.families.get("pmfx_process_log_lines_total")!.type).toBe("counter")
    // The lines are in the app's log as usual.
    const logs = await daemon.request("GET", "/api/processes/chatty/logs?lines=20")
    expect(logs.status, logs.raw).toBe(200)
    expect(logs.raw).toContain("xxxxxxxxxx")
    // A deleted app's series go away with it.
    expect((await daemon.request("DELETE", "/api/processes/chatty")).status).toBe(204)
    const afterDelete = await scrape(daemon)
    expect(afterDelete.series("pmfx_process_log_lines_total", { name: "chatty" })).toEqual([])
    expect(afterDelete.series("pmfx_process_status", { name: "chatty" })).toEqual([])
    expect(afterDelete.value("pmfx_log_dropped_lines_total")).toBe(0)
  })

  it("reports the daemon itself and counts requests by route template and status", async () => {
    const daemon = daemons[0]!
    for (const id of ["nope-1", "nope-2"])
      expect((await daemon.request("GET", `/api/processes/${id}`)).status).toBe(404)
    expect((await daemon.request("GET", "/no/such/route")).status).toBe(404)
    const exposition = await scrape(daemon)
    expect(
      exposition.value("pmfx_daemon_http_requests_total", { method: "POST", route: "/api/processes", status: "201" })
    ).toBe(4)
    expect(
      exposition.value("pmfx_daemon_http_requests_total", { method: "GET", route: "/api/processes/:id", status: "404" })
    ).toBe(2)
    expect(
      exposition.value("pmfx_daemon_http_requests_total", { method: "GET", route: "unmatched", status: "404" })
    ).toBe(1)
    expect(
      exposition.value("pmfx_daemon_http_requests_total", {
        method: "DELETE",
        route: "/api/processes/:id",
        status: "204"
      })
    ).toBe(1)
    // No series carries an id or a name as its route.
    for (const series of exposition.series("pmfx_daemon_http_requests_total"))
      expect(series.labels["route"]).not.toMatch(/nope|chatty|web/)
    const status = await daemon.request("GET", "/api/status")
    expect(exposition.value("pmfx_daemon_start_time_seconds") * 1000).toBeGreaterThan(
      Date.now() - status.body.uptime_ms - 60_000
    )
    expect(exposition.value("pmfx_daemon_start_time_seconds") * 1000).toBeLessThanOrEqual(Date.now())
    expect(exposition.value("pmfx_daemon_cpu_seconds_total")).toBeGreaterThan(0)
    expect(exposition.value("pmfx_daemon_memory_bytes")).toBeGreaterThan(10 * 1024 * 1024)
    expect(exposition.value("pmfx_daemon_event_loop_lag_seconds")).toBeGreaterThanOrEqual(0)
    expect(exposition.value("pmfx_daemon_event_loop_busy_seconds_total")).toBeGreaterThan(0)
    expect(exposition.value("pmfx_daemon_websocket_connections")).toBe(0)
    expect(
      exposition.value("pmfx_daemon_info", { version: String((await daemon.request("GET", "/")).body.version) })
    ).toBe(1)
    // Counters only grow between scrapes.
    const later = await scrape(daemon)
    expect(later.value("pmfx_daemon_cpu_seconds_total")).toBeGreaterThanOrEqual(
      exposition.value("pmfx_daemon_cpu_seconds_total")
    )
    expect(later.value("pmfx_daemon_http_requests_total", { method: "GET", route: "/metrics", status: "200" })).toBe(
      exposition.value("pmfx_daemon_http_requests_total", { method: "GET", route: "/metrics", status: "200" }) + 1
    )
  })
})

describe("GET /metrics in the OpenAPI document", () => {
  it("is described as a text/plain answer of the exposition format", async () => {
    const document = (await daemons[0]!.request("GET", "/api/openapi.json")).body
    expect(Object.keys(document.paths["/metrics"].get.responses["200"].content)).toEqual([
      "text/plain; version=0.0.4; charset=utf-8"
    ])
  })
})

describe("GET /metrics on the TCP listener", () => {
  it("serves the same exposition, counts the guard's 401s and the open WebSocket sessions", async () => {
    const daemon = daemons[0]!
    const port = await freeListenerPort()
    const key = "metrics-key-0123456789"
    await openWeb(daemon, { port, api_key: key })
    const auth = { authorization: `Bearer ${key}` }
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(401)
    const client = await connectWs(`ws://localhost:${port}/ws`, { "x-api-key": key })
    clients.push(client)
    await client.next((message) => message.type === "process_list", "the first process_list")
    const open = await tcp(port, "GET", "/metrics", auth)
    expect(open.status, open.raw).toBe(200)
    const exposition = parseExposition(open.raw)
    expect(exposition.value("pmfx_daemon_websocket_connections")).toBe(1)
    expect(
      exposition.value("pmfx_daemon_http_requests_total", { method: "GET", route: "/api/processes", status: "401" })
    ).toBe(1)
    expect(exposition.series("pmfx_process_status", { name: TRICKY, status: "online" })).toHaveLength(1)
    client.close()
    await client.closed
    await eventually(
      async () =>
        parseExposition((await tcp(port, "GET", "/metrics", auth)).raw).value("pmfx_daemon_websocket_connections") ===
        0,
      "the session counted as closed"
    )
    const closed = parseExposition((await daemon.request("GET", "/metrics")).raw)
    expect(
      closed.series("pmfx_daemon_http_requests_total", { route: "/ws" }).map((s) => [s.labels["status"], s.value])
    ).toEqual([["101", 1]])
    expect((await daemon.request("PUT", "/daemon/web", { host: "localhost", port, stop: true })).status).toBe(200)
  })
})
