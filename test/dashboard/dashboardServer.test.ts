/**
 * What the daemon serves for the dashboard (docs/dashboard.md, docs/api.md): the page on `/ui/`
 * and on a browser's `GET /` (JSON clients keep the service record), its headers (a strict CSP,
 * caching, gzip), public files on a keyed listener that still guards every API route, the
 * Origin/Host checks, and the metrics history the charts draw (`metrics?history=`).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { CONTENT_SECURITY_POLICY } from "../../src/api/dashboard/dashboardAssets"
import { type Daemon, eventually, idleApp, startDaemon } from "../api/daemon"
import { sharedDaemon } from "../api/sharedDaemon"
import { freeListenerPort, openWeb, tcp } from "../api/tcp"
import { connectWs } from "../support/wsClient"

const KEY = "srv-full-key-0123456789"
const HTML = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

const daemons: Array<Daemon> = []
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop()
})

/**
 * The daemon of the tests on a listener without a key: after each test its apps are deleted, so
 * each test's `d-app` is new. The keyed listener's test starts a daemon of its own (`own: true`).
 */
const shared = sharedDaemon()

/** A daemon (the shared one, or with `own` a new one) with `d-app` and its listener open on a new port. */
const daemonWithWeb = async (settings: Record<string, unknown> = {}, options: { readonly own?: boolean } = {}) => {
  let daemon: Daemon
  if (options.own === true) {
    daemon = await startDaemon()
    daemons.push(daemon)
  } else daemon = shared()
  const created = await daemon.request("POST", "/api/processes", idleApp("d-app"))
  expect(created.status, created.raw).toBe(201)
  const port = await freeListenerPort()
  await openWeb(daemon, { port, ...settings })
  return { daemon, port }
}

describe("the dashboard's files", () => {
  it("serves the page on /ui/ and to a browser's GET /, and keeps the JSON service record for everyone else", async () => {
    const { port } = await daemonWithWeb()
    const page = await tcp(port, "GET", "/ui/")
    expect(page.status).toBe(200)
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
    expect(page.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY)
    expect(page.headers["cache-control"]).toBe("no-cache")
    expect(page.headers["x-content-type-options"]).toBe("nosniff")
    expect(page.raw).toMatch(/<script type="module" src="\/ui\/app-[A-Z0-9]+\.js"><\/script>/)
    // Nothing inline for the CSP to allow, nothing from another host.
    expect(page.raw).not.toMatch(/<script>|<style|style="|https?:\/\//)

    const browser = await tcp(port, "GET", "/", { accept: HTML })
    expect(browser.status).toBe(200)
    expect(browser.raw).toBe(page.raw)
    for (const accept of [undefined, "application/json", "*/*"]) {
      const json = await tcp(port, "GET", "/", accept === undefined ? {} : { accept })
      expect(json.status).toBe(200)
      expect(json.body.name).toBe("pmfx")
    }
    const redirect = await tcp(port, "GET", "/ui")
    expect(redirect.status).toBe(301)
    expect(redirect.headers["location"]).toBe("/ui/")
  })

  it("sends the hashed files gzipped and cached for a year, and nothing else", async () => {
    const { port } = await daemonWithWeb()
    const page = await tcp(port, "GET", "/ui/")
    const script = /src="\/ui\/(app-[A-Z0-9]+\.js)"/.exec(page.raw)![1]!
    const style = /href="\/ui\/(app-[A-Z0-9]+\.css)"/.exec(page.raw)![1]!
    const js = await tcp(port, "GET", `/ui/${script}`, { "accept-encoding": "gzip, br" })
    expect(js.status).toBe(200)
    expect(js.headers["content-encoding"]).toBe("gzip")
    expect(js.headers["content-type"]).toBe("text/javascript; charset=utf-8")
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
    const css = await tcp(port, "GET", `/ui/${style}`)
    expect(css.status).toBe(200)
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8")
    for (const bad of ["/ui/nope.js", "/ui/..%2F..%2Fpackage.json", "/ui/%2E%2E/daemon.cjs", "/ui/../pmfx.cjs"]) {
      const reply = await tcp(port, "GET", bad)
      expect(reply.status, bad).toBe(404)
    }
    // The first load (page, script, stylesheet, gzipped) stays far under 150 KB.
    const sizes = await Promise.all(
      [`/ui/`, `/ui/${script}`, `/ui/${style}`].map(async (file) => {
        const reply = await tcp(port, "HEAD", file, { "accept-encoding": "gzip" })
        return Number(reply.headers["content-length"])
      })
    )
    expect(sizes.every((size) => size > 0)).toBe(true)
    expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThan(150 * 1024)
  })

  it("leaves the files public on a keyed listener while every API route still needs the key", async () => {
    const { daemon, port } = await daemonWithWeb({ api_key: KEY }, { own: true })
    expect((await tcp(port, "GET", "/ui/")).status).toBe(200)
    expect((await tcp(port, "GET", "/", { accept: HTML })).status).toBe(200)
    expect((await tcp(port, "GET", "/api/processes", { accept: HTML })).status).toBe(401)
    expect((await tcp(port, "GET", "/api/processes/d-app/metrics?history=15m")).status).toBe(401)
    // Only GET and HEAD: a POST to /ui/ is an API request like any other.
    expect((await tcp(port, "POST", "/ui/")).status).toBe(401)
    expect((await daemon.request("GET", "/health")).status).toBe(200)
  })

  it("guards the page with the API's Host and Origin checks", async () => {
    const { daemon, port } = await daemonWithWeb()
    // DNS rebinding: another Host name gets no page.
    const rebound = await tcp(port, "GET", "/ui/", { host: `evil.example:${port}` })
    expect(rebound.status).toBe(403)
    // A page of another origin may not act, nor open the feed.
    const stop = await tcp(port, "POST", "/api/processes/d-app/stop", { origin: "http://evil.example" })
    expect(stop.status).toBe(403)
    expect(stop.body).toEqual({
      error: "forbidden",
      message: "Access denied: origin http://evil.example is not allowed"
    })
    await expect(connectWs(`ws://localhost:${port}/ws`, { origin: "http://evil.example" })).rejects.toThrow(
      "handshake refused: 403"
    )
    // The dashboard's own origin may.
    const own = await tcp(port, "POST", "/api/processes/d-app/stop", { origin: `http://localhost:${port}` })
    expect(own.status, own.raw).toBe(200)
    const listed = await daemon.request("GET", "/api/processes")
    expect(listed.body[0].status).toBe("stopped")
  })
})

describe("GET /api/processes/{id}/metrics?history=", () => {
  it("gives the samples of the window asked for, oldest first", async () => {
    const { daemon } = await daemonWithWeb()
    await eventually(async () => {
      const reply = await daemon.request("GET", "/api/processes/d-app/metrics?history=15m")
      return reply.status === 200 && reply.body.history.length >= 3 ? reply : undefined
    }, "three samples in the history")
    const reply = await daemon.request("GET", "/api/processes/d-app/metrics?history=15m")
    const times = (reply.body.history as Array<{ timestamp: string; cpu_usage: number; rss: number }>).map((point) =>
      Date.parse(point.timestamp)
    )
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    expect(reply.body.history.every((point: { rss: number }) => point.rss > 0)).toBe(true)
    // A shorter window gives fewer (or as many) points, all inside it.
    const short = await daemon.request("GET", "/api/processes/d-app/metrics?history=1s")
    expect(short.status).toBe(200)
    expect(short.body.history.length).toBeLessThanOrEqual(reply.body.history.length)
    // Without the parameter the answer is as before (the last 60 samples).
    const plain = await daemon.request("GET", "/api/processes/d-app/metrics")
    expect(plain.status).toBe(200)
    expect(Array.isArray(plain.body.history)).toBe(true)
  })

  it("answers BAD_REQUEST naming history for a bad window, and the daemon goes on", async () => {
    const { daemon } = await daemonWithWeb()
    for (const [value, reason] of [
      ["soon", "soon"],
      ["16m", "longer than 15m"],
      ["-5s", "-5s"],
      ["", ""]
    ] as const) {
      const reply = await daemon.request("GET", `/api/processes/d-app/metrics?history=${encodeURIComponent(value)}`)
      expect(reply.status, `${value}: ${reply.raw}`).toBe(400)
      expect(reply.body.error.code).toBe("BAD_REQUEST")
      expect(reply.body.error.details.field).toBe("history")
      expect(reply.body.error.message).toContain(reason)
      expect(reply.body.error.details.suggestion).toBeTruthy()
    }
    const twice = await daemon.request("GET", "/api/processes/d-app/metrics?history=1m&history=2m")
    expect(twice.status).toBe(400)
    const unknown = await daemon.request("GET", "/api/processes/nope/metrics?history=5m")
    expect(unknown.status).toBe(404)
    expect(unknown.body.error.code).toBe("PROCESS_NOT_FOUND")
    expect((await daemon.request("GET", "/api/processes/d-app/metrics?history=5m")).status).toBe(200)
    expect((await daemon.request("GET", "/api/processes")).body[0].status).toBe("online")
  })
})
