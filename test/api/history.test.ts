/**
 * `GET /api/alerts` and `GET /api/webhooks/deliveries` through a real daemon (docs/api.md, "Alert
 * and webhook history"): a crashing app raises an alert, which is POSTed to a receiver that
 * answers, one that answers 500 and a port nobody listens on; the history keeps the alert and the
 * three outcomes, with each URL's credentials, query and token redacted.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fixture } from "../support/engine"
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver"
import { type Daemon, eventually, startDaemon } from "./daemon"
import { badRequest, ISO_UTC } from "./shapes"

/** A path segment long enough to be taken for a token (as in a Slack or Discord webhook URL). */
const TOKEN = "T0KEN0123456789abcdef"

let daemon: Daemon
let good: WebhookReceiver
let failing: http.Server
/** Requests the failing receiver answered with 500. */
let failures = 0
let failingPort: number
let closedPort: number

const listen = (server: http.Server): Promise<number> =>
  new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

const close = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

beforeAll(async () => {
  daemon = await startDaemon()
  good = await startWebhookReceiver()
  failing = http.createServer((request, response) => {
    request.resume()
    failures++
    response.writeHead(500).end("broken")
  })
  failingPort = await listen(failing)
  // Bound, then released: nothing listens there.
  const released = http.createServer()
  closedPort = await listen(released)
  await close(released)
})

afterAll(async () => {
  // The daemon first, so that nothing posts to a closing receiver.
  await daemon?.stop()
  await good?.close()
  if (failing !== undefined) await close(failing)
})

const get = async (urlPath: string) => {
  const reply = await daemon.request("GET", urlPath)
  expect(reply.status, `${urlPath}: ${reply.raw}`).toBe(200)
  return reply
}

/** An app that exits with code 1 once, 300 ms after it starts. */
const crashingApp = (name: string) => ({
  name,
  script: fixture("crash-after.js"),
  env: { CRASH_AFTER_MS: "300" },
  autorestart: false
})

describe("the alert and webhook history", () => {
  it("is empty on a fresh daemon", async () => {
    expect((await get("/api/alerts")).body).toEqual({ capacity: 100, recorded: 0, alerts: [] })
    expect((await get("/api/webhooks/deliveries")).body).toEqual({ capacity: 100, recorded: 0, deliveries: [] })
  })

  it("keeps a crash alert and each delivery's outcome, with the URLs redacted", async () => {
    const goodPort = new URL(good.url).port
    const hooks = [
      `http://alice:s3cret-pass@127.0.0.1:${goodPort}/hook/${TOKEN}?token=query-secret`,
      `http://127.0.0.1:${failingPort}/fail`,
      `http://127.0.0.1:${closedPort}/closed`
    ].map((url) => ({ enabled: true, url, events: ["process_crash"] }))
    const created = await daemon.request("POST", "/api/processes", { apps: [crashingApp("crashy")], webhooks: hooks })
    expect(created.status, created.raw).toBe(201)
    const id = created.body.processes[0].id as number

    const alerts = await eventually(async () => {
      const body = (await get("/api/alerts")).body
      return body.alerts.length >= 1 ? body : undefined
    }, "the crash alert in the history")
    expect(alerts).toEqual({
      capacity: 100,
      recorded: 1,
      alerts: [
        {
          kind: "process_crash",
          process: { id, name: "crashy", instance: 0 },
          message: `crashy (id ${id}) crashed: exited with code 1`,
          data: { pid: expect.any(Number), exit_code: 1, signal: null, uptime_ms: expect.any(Number) },
          timestamp: expect.stringMatching(ISO_UTC)
        }
      ]
    })

    // Both failing targets are tried 4 times (3 retries with backoff) before they are given up.
    const reply = await eventually(async () => {
      const answer = await get("/api/webhooks/deliveries")
      return answer.body.deliveries.length >= 3 ? answer : undefined
    }, "three deliveries in the history")
    const deliveries = reply.body.deliveries as Array<{ url: string }>
    const byPort = (port: number | string) => deliveries.find((delivery) => delivery.url.includes(`:${port}/`))
    const common = {
      timestamp: expect.stringMatching(ISO_UTC),
      event: "process_crash",
      process: { id, name: "crashy" },
      duration_ms: expect.any(Number)
    }
    expect(reply.body).toMatchObject({ capacity: 100, recorded: 3 })
    expect(byPort(goodPort)).toEqual({
      ...common,
      url: `http://***@127.0.0.1:${goodPort}/hook/***?***`,
      outcome: "delivered",
      status: 204,
      error: null,
      attempts: 1
    })
    expect(byPort(failingPort)).toEqual({
      ...common,
      url: `http://127.0.0.1:${failingPort}/fail`,
      outcome: "failed",
      status: 500,
      error: "HTTP 500",
      attempts: 4
    })
    expect(byPort(closedPort)).toEqual({
      ...common,
      url: `http://127.0.0.1:${closedPort}/closed`,
      outcome: "failed",
      status: null,
      error: expect.stringContaining("ECONNREFUSED"),
      attempts: 4
    })
    // The receivers saw what the history says.
    expect(good.bodies).toHaveLength(1)
    expect(failures).toBe(4)
    // No credential of any URL is in the answer.
    for (const secret of ["alice", "s3cret-pass", "query-secret", TOKEN]) expect(reply.raw).not.toContain(secret)
  })

  it("answers the newest first, as many as `limit` asks", async () => {
    const created = await daemon.request("POST", "/api/processes", { apps: [crashingApp("second")] })
    expect(created.status, created.raw).toBe(201)
    await eventually(
      async () => (await get("/api/alerts")).body.alerts.some((alert: any) => alert.process.name === "second"),
      "the second app's crash alert"
    )
    const all = (await get("/api/alerts")).body
    const one = (await get("/api/alerts?limit=1")).body
    expect(one).toEqual({ capacity: 100, recorded: all.recorded, alerts: [all.alerts[0]] })
    expect(one.alerts[0].process.name).toBe("second")
    expect(all.alerts.map((alert: any) => alert.process.name)).toEqual(["second", "crashy"])

    await eventually(
      async () =>
        (await get("/api/webhooks/deliveries")).body.deliveries.filter((d: any) => d.process.name === "second")
          .length === 3,
      "the second crash's three deliveries"
    )
    const deliveries = (await get("/api/webhooks/deliveries?limit=2")).body
    expect(deliveries.deliveries).toHaveLength(2)
    expect(deliveries.recorded).toBe(6)
    expect((await get("/api/webhooks/deliveries?limit=100")).body.deliveries).toHaveLength(6)
  })

  it.each([
    ["abc", "is not a whole number"],
    ["-1", "is not a whole number"],
    ["0", "is not a whole number of at least 1"],
    ["1.5", "is not a whole number"],
    ["100000", "is more than the 100 entries"],
    ["101", "is more than the 100 entries"]
  ])("refuses limit=%s with BAD_REQUEST on the field limit, and still answers", async (limit, reason) => {
    const before = (await get("/api/alerts")).body
    for (const route of ["/api/alerts", "/api/webhooks/deliveries"]) {
      const reply = await daemon.request("GET", `${route}?limit=${encodeURIComponent(limit)}`)
      expect(reply.status, reply.raw).toBe(400)
      expect(reply.body).toEqual(badRequest("limit"))
      expect(reply.body.error.message).toBe(`Invalid limit: ${reply.body.error.details.reason}`)
      expect(reply.body.error.details.reason).toContain(reason)
      expect(reply.body.error.details.suggestion).toContain("limit=")
    }
    // Nothing else broke: the history is intact and the daemon answers.
    expect((await get("/api/alerts")).body).toEqual(before)
    expect((await get("/api/status")).body.pid).toBe(daemon.pid)
  })
})
