/**
 * Who may scrape `GET /metrics` on the TCP listener (docs/metrics.md): with a key configured it is
 * a read route like the others (no key or a wrong one → 401, the read-only key may scrape, it may
 * not POST); `metrics_public` (`pmfx web --metrics-public`, `pmfx daemon --web --metrics-public`)
 * opens GET /metrics alone, and nothing else, to a request without a key.
 */
import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { spawnSync } from "node:child_process"
import { makeSandbox, type Sandbox } from "../support/cli"
import { parseExposition } from "../support/prometheus"
import { daemonCommand } from "../support/daemonCommand"
import { type Daemon, idleApp, startDaemon } from "./daemon"
import { sharedDaemon } from "./sharedDaemon"
import { freeListenerPort, openWeb, tcp } from "./tcp"

const UNAUTHORIZED = { error: "unauthorized", message: "Invalid or missing API key" }
const READ_ONLY_DENIED = { error: "forbidden", message: "Access denied: read-only API key" }
const KEY = "metrics-full-0123456789"
const RO_KEY = "metrics-read-9876543210"
const TEXT = "text/plain; version=0.0.4; charset=utf-8"

const daemons: Array<Daemon> = []
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop()
})

/**
 * The daemon of the tests that open the listener through `PUT /daemon/web`: after each test its
 * apps are deleted, and each test opens the listener again on a new port with its settings, which
 * replace the previous ones as a whole (each test checks the key and `metrics_public` it set).
 * The daemon started with `--web` flags and the CLI's test keep daemons of their own.
 */
const shared = sharedDaemon()

/** The shared daemon with a new `scraped` app and its listener open on a new port with `settings`. */
const daemonWithListener = async (settings: Record<string, unknown>) => {
  const daemon = shared()
  const created = await daemon.request("POST", "/api/processes", idleApp("scraped"))
  expect(created.status, created.raw).toBe(201)
  expect((await daemon.request("GET", "/api/processes/scraped/ready?timeout=30s")).status).toBe(200)
  const port = await freeListenerPort()
  await openWeb(daemon, { port, ...settings })
  return { daemon, port }
}

/** The scrape worked: 200, the exposition's content type, and the app in it. */
const expectScrape = (reply: { status: number; headers: Record<string, unknown>; raw: string }) => {
  expect(reply.status, reply.raw).toBe(200)
  expect(reply.headers["content-type"]).toBe(TEXT)
  expect(parseExposition(reply.raw).value("pmfx_process_status", { name: "scraped", status: "online" })).toBe(1)
}

describe("GET /metrics with API keys", () => {
  it("needs a key like every read route; the read-only key may scrape but not POST", async () => {
    const { daemon, port } = await daemonWithListener({ api_key: KEY, read_only_api_key: RO_KEY })
    const none = await tcp(port, "GET", "/metrics")
    expect(none.status).toBe(401)
    expect(none.body).toEqual(UNAUTHORIZED)
    expect(none.raw).not.toContain("pmfx_")
    const wrong = await tcp(port, "GET", "/metrics", { authorization: "Bearer not-the-key" })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toEqual(UNAUTHORIZED)
    expectScrape(await tcp(port, "GET", "/metrics", { authorization: `Bearer ${RO_KEY}` }))
    expectScrape(await tcp(port, "GET", "/metrics", { "x-api-key": RO_KEY }))
    expectScrape(await tcp(port, "GET", "/metrics", { authorization: `ApiKey ${KEY}` }))
    const posted = await tcp(port, "POST", "/metrics", { authorization: `Bearer ${RO_KEY}` })
    expect(posted.status).toBe(403)
    expect(posted.body).toEqual(READ_ONLY_DENIED)
    // The socket needs no key (its file mode is its authentication), and the daemon still answers.
    expectScrape(await daemon.request("GET", "/metrics"))
    expect((await daemon.request("GET", "/api/processes")).status).toBe(200)
  })
})

describe("metrics_public", () => {
  it("opens GET /metrics to a request without a key, and nothing else", async () => {
    const { daemon, port } = await daemonWithListener({ api_key: KEY, metrics_public: true })
    expectScrape(await tcp(port, "GET", "/metrics"))
    for (const route of ["/api/processes", "/api/status", "/health", "/api/processes/scraped/metrics"]) {
      const reply = await tcp(port, "GET", route)
      expect(reply.status, route).toBe(401)
      expect(reply.body, route).toEqual(UNAUTHORIZED)
    }
    const posted = await tcp(port, "POST", "/metrics")
    expect(posted.status).toBe(401)
    expect(posted.body).toEqual(UNAUTHORIZED)
    const restart = await tcp(port, "POST", "/api/processes/scraped/restart")
    expect(restart.status).toBe(401)
    // The browser protections still apply: a foreign Host on the loopback listener is refused.
    const rebound = await tcp(port, "GET", "/metrics", { host: `evil.example:${port}` })
    expect(rebound.status).toBe(403)
    expect(rebound.body).toEqual({
      error: "forbidden",
      message: "Access denied: the Host header does not name this loopback listener"
    })
    // Remembered with the listener, so the next daemon opens it the same way.
    const saved = JSON.parse(fs.readFileSync(path.join(daemon.home, "state.json"), "utf8"))
    expect(saved.web).toMatchObject({ port, metricsPublic: true })
    expect((await daemon.request("GET", "/api/processes/scraped")).body.status).toBe("online")
  })

  it("refuses a metrics_public that is not a boolean, and keeps the listener as it was", async () => {
    const { daemon, port } = await daemonWithListener({ api_key: KEY })
    const bad = await daemon.request("PUT", "/daemon/web", {
      host: "localhost",
      port,
      api_key: KEY,
      metrics_public: "yes"
    })
    expect(bad.status, bad.raw).toBe(400)
    expect(bad.body.success).toBe(false)
    expect(bad.body.error.code).toBe("BAD_REQUEST")
    expect((await tcp(port, "GET", "/metrics")).status).toBe(401)
    expectScrape(await tcp(port, "GET", "/metrics", { authorization: `Bearer ${KEY}` }))
  })
})

describe("pmfx daemon --web --metrics-public", () => {
  it("opens the listener with GET /metrics public and every other route keyed", async () => {
    const port = await freeListenerPort()
    const daemon = await startDaemon(undefined, {
      args: ["--web", `--port=${port}`, `--api-key=${KEY}`, "--metrics-public"]
    })
    daemons.push(daemon)
    const scraped = await tcp(port, "GET", "/metrics")
    expect(scraped.status, scraped.raw).toBe(200)
    expect(scraped.headers["content-type"]).toBe(TEXT)
    expect(parseExposition(scraped.raw).value("pmfx_daemon_websocket_connections")).toBe(0)
    const listed = await tcp(port, "GET", "/api/processes")
    expect(listed.status).toBe(401)
    expect(listed.body).toEqual(UNAUTHORIZED)
  })
})

describe("--metrics-public on the command line", () => {
  let sandbox: Sandbox | undefined
  afterEach(() => sandbox?.cleanup())

  it("pmfx web --metrics-public opens the scrape and says so; pmfx daemon refuses it without --web", async () => {
    sandbox = makeSandbox()
    const port = await freeListenerPort()
    const opened = sandbox.pmfx(["web", "--port", String(port), "--metrics-public"], { PMFX_API_KEY: KEY })
    expect(opened.code, opened.stderr).toBe(0)
    expect(opened.stdout).toContain(`GET http://localhost:${port}/metrics answers without a key (--metrics-public)`)
    expect(opened.stdout + opened.stderr).not.toContain(KEY)
    const scraped = await tcp(port, "GET", "/metrics")
    expect(scraped.status, scraped.raw).toBe(200)
    expect(parseExposition(scraped.raw).families.has("pmfx_daemon_cpu_seconds_total")).toBe(true)
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(401)

    const [node, ...args] = daemonCommand(["--metrics-public"])
    const refused = spawnSync(node, args, {
      env: { ...process.env, PMFX_HOME: path.join(sandbox.dir, "unused-home") },
      encoding: "utf8",
      timeout: 30_000
    })
    expect(refused.status).toBe(2)
    expect(refused.stderr).toContain("pmfx daemon: --metrics-public configures the web listener: add --web to open it")
  })
})
