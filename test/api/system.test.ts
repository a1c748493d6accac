/** `GET /`, the OpenAPI document, `/api/system`, `/api/status`, `/api/system/stats` and `/health` through a real daemon. */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as os from "node:os"
import * as path from "node:path"
import { HttpApi } from "@effect/platform"
import packageJson from "../../package.json"
import { PmfxApi } from "../../src/shared/Api"
import { type Daemon, eventually, idleApp, startDaemon } from "./daemon"
import { badRequest, ISO_UTC, UPTIME } from "./shapes"

let daemon: Daemon
beforeAll(async () => {
  daemon = await startDaemon()
})
afterAll(async () => {
  await daemon?.stop()
})

const get = async (urlPath: string, status = 200) => {
  const reply = await daemon.request("GET", urlPath)
  expect(reply.status, `${urlPath}: ${reply.raw}`).toBe(status)
  expect(reply.headers["content-type"]).toMatch(/^application\/json/)
  return reply.body
}

const ENDPOINTS = {
  processes: "/api/processes",
  system: "/api/system",
  status: "/api/status",
  websocket: "/ws",
  system_stats: "/api/system/stats",
  health: "/health",
  alerts: "/api/alerts",
  webhook_deliveries: "/api/webhooks/deliveries",
  metrics: "/metrics",
  openapi: "/api/openapi.json",
  dashboard: "/ui/"
}

/** The route groups `GET /` does not point to, and why. */
const UNLISTED_GROUPS: Readonly<Record<string, string>> = {
  service: "GET / is the record itself",
  daemon: "the daemon's control routes are served on the unix socket only"
}

describe("GET /", () => {
  it("gives the service record (docs/api.md §3)", async () => {
    expect(await get("/")).toEqual({
      name: "pmfx",
      version: packageJson.version,
      description: packageJson.description,
      status: "running",
      endpoints: ENDPOINTS
    })
  })

  it("points to every route group of the API contract, and each path it lists is served", async () => {
    const listed = new Set<string>(Object.values(ENDPOINTS))
    const groups = new Map<string, Array<string>>()
    HttpApi.reflect(PmfxApi, {
      onGroup: ({ group }) => void groups.set(group.identifier, []),
      onEndpoint: ({ group, endpoint }) => void groups.get(group.identifier)?.push(endpoint.path)
    })
    expect(groups.size).toBeGreaterThan(2)
    for (const [group, paths] of groups) {
      if (group in UNLISTED_GROUPS) continue
      expect(
        paths.some((p) => listed.has(p)),
        `GET / lists none of the ${group} group's routes (${paths.join(", ")})`
      ).toBe(true)
    }
    // Every listed path answers (the WebSocket refuses a plain GET, but it is there; the dashboard
    // is served on the TCP listener of \`pmfx web\`, test/dashboard).
    for (const urlPath of listed) {
      if (urlPath === "/ws" || urlPath === "/ui/") continue
      const reply = await daemon.request("GET", urlPath)
      expect(reply.status, `${urlPath}: ${reply.raw}`).toBe(200)
    }
    expect((await daemon.request("GET", "/ws")).status).not.toBe(404)
  })
})

describe("GET /api/openapi.json", () => {
  it("is an OpenAPI document of the API", async () => {
    const document = await get("/api/openapi.json")
    expect(document.openapi).toMatch(/^3\./)
    expect(document.info).toMatchObject({ title: "pmfx", version: packageJson.version })
    expect(Object.keys(document.paths["/api/processes"]).sort()).toEqual(["delete", "get", "post"])
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        "/",
        "/api/processes/{id}",
        "/api/processes/{id}/logs",
        "/api/system",
        "/api/status",
        "/api/system/stats",
        "/health"
      ])
    )
    // Errors are documented in their wire shape.
    expect(JSON.stringify(document.paths["/api/processes/{id}"].get.responses["404"])).toContain("PROCESS_NOT_FOUND")
  })
})

describe("GET /api/system", () => {
  it("describes the host and the daemon", async () => {
    expect(await get("/api/system")).toEqual({
      hostname: os.hostname(),
      platform: os.platform(),
      arch: os.arch(),
      release: os.release(),
      cpus: os.availableParallelism(),
      total_memory: os.totalmem(),
      node_version: process.version,
      version: packageJson.version,
      daemon: {
        pid: daemon.pid,
        started_at: expect.stringMatching(ISO_UTC),
        uptime: expect.stringMatching(UPTIME),
        home: daemon.home,
        rss: expect.any(Number)
      }
    })
  })
})

describe("GET /api/system/stats", () => {
  it("gives CPU, memory, disk and network statistics", async () => {
    const stats = await get("/api/system/stats")
    expect(stats).toEqual({
      cpu: { usage_percent: expect.any(Number), cores: os.availableParallelism(), load_average: expect.any(Array) },
      memory: {
        total: os.totalmem(),
        available: expect.any(Number),
        used: expect.any(Number),
        usage_percent: expect.any(Number)
      },
      disk: {
        path: daemon.home,
        total: expect.any(Number),
        available: expect.any(Number),
        used: expect.any(Number),
        usage_percent: expect.any(Number)
      },
      network: { rx_bytes: expect.any(Number), tx_bytes: expect.any(Number), interfaces: expect.any(Array) },
      timestamp: expect.stringMatching(ISO_UTC)
    })
    expect(stats.cpu.load_average).toHaveLength(3)
    expect(stats.memory.available).toBeLessThanOrEqual(stats.memory.total)
    for (const nic of stats.network.interfaces)
      expect(nic).toEqual({ name: expect.any(String), rx_bytes: expect.any(Number), tx_bytes: expect.any(Number) })
  })
})

describe("GET /api/status and /health", () => {
  // No save has failed (a daemon that has not saved yet has no time to show).
  const savedState = {
    saved: true,
    last_saved_at: expect.toSatisfy((v: unknown) => v === null || ISO_UTC.test(String(v))),
    error: null
  }
  const counts = (by: Partial<Record<string, number>>) => ({
    starting: 0,
    online: 0,
    stopping: 0,
    stopped: 0,
    restarting: 0,
    errored: 0,
    ...by
  })

  it("report an empty daemon as healthy", async () => {
    const status = await get("/api/status")
    expect(status).toEqual({
      version: packageJson.version,
      pid: daemon.pid,
      uptime: expect.stringMatching(UPTIME),
      uptime_ms: expect.any(Number),
      home: daemon.home,
      socket: path.join(daemon.home, "pmfx.sock"),
      processes: { total: 0, by_status: counts({}) },
      web: null
    })
    expect(await get("/health")).toEqual({
      status: "healthy",
      daemon: { pid: daemon.pid, uptime: expect.stringMatching(UPTIME) },
      processes: { total: 0, online: 0, errored: 0, unhealthy: 0 },
      state: savedState,
      logs: { dropped_lines: 0, failing: [] }
    })
  })

  it("count rows per state; /health is healthy while every wanted row is online", async () => {
    expect((await daemon.request("POST", "/api/processes", idleApp("up", { instances: 2 }))).status).toBe(201)
    expect((await daemon.request("GET", "/api/processes/up/ready?timeout=30s")).status).toBe(200)
    expect((await get("/api/status")).processes).toEqual({ total: 2, by_status: counts({ online: 2 }) })
    const health = await get("/health")
    expect(health).toMatchObject({ status: "healthy", processes: { total: 2, online: 2, errored: 0, unhealthy: 0 } })
    // The same report (a save in between may move state.last_saved_at, a second may pass in uptime).
    expect(await get("/health?strict=true")).toEqual({
      ...health,
      daemon: { ...health.daemon, uptime: expect.stringMatching(UPTIME) },
      state: savedState
    })
    // A row the user stopped is not wanted: still healthy.
    expect((await daemon.request("POST", "/api/processes/up/stop")).status).toBe(200)
    expect((await get("/api/status")).processes).toEqual({ total: 2, by_status: counts({ stopped: 2 }) })
    expect((await get("/health")).status).toBe("healthy")
    expect((await daemon.request("POST", "/api/processes/up/start")).status).toBe(200)
    expect((await daemon.request("GET", "/api/processes/up/ready?timeout=30s")).status).toBe(200)
  })

  it("/health is degraded with an errored app (200), and 503 with strict=true", async () => {
    // An app that exits non-zero without autorestart ends errored (a creation whose first spawn
    // fails is not kept, so a missing program would leave no row: docs/api.md).
    const broken = { name: "broken", script: process.execPath, args: ["-e", "process.exit(2)"], autorestart: false }
    expect((await daemon.request("POST", "/api/processes", broken)).status).toBe(201)
    const processes = await eventually(async () => {
      const now = (await get("/api/status")).processes as { by_status: { errored: number } }
      return now.by_status.errored === 1 ? now : undefined
    }, "broken to end errored")
    expect(processes).toEqual({ total: 3, by_status: counts({ online: 2, errored: 1 }) })
    const degraded = {
      status: "degraded",
      daemon: { pid: daemon.pid, uptime: expect.stringMatching(UPTIME) },
      processes: { total: 3, online: 2, errored: 1, unhealthy: 0 },
      state: savedState,
      logs: { dropped_lines: 0, failing: [] }
    }
    expect(await get("/health")).toEqual(degraded)
    expect(await get("/health?strict=false")).toEqual(degraded)
    expect(await get("/health?strict=true", 503)).toEqual(degraded)
    expect(await get("/health?strict=1", 503)).toEqual(degraded)
    expect(await get("/health?strict=0")).toEqual(degraded)
    // A value that is not a yes or a no is refused, not read as "not strict".
    for (const strict of ["x", "yes", "TRUE", ""])
      expect(await get(`/health?strict=${strict}`, 400), strict).toEqual(badRequest("strict"))
    expect((await daemon.request("DELETE", "/api/processes/broken")).status).toBe(204)
    expect((await get("/health?strict=true")).status).toBe("healthy")
  })
})
