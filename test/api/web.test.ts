/**
 * The TCP listener (`PUT /daemon/web`, `pmfx web`; docs/api.md, docs/architecture.md §10): the same API as the socket
 * without the daemon routes, API keys in three header forms, the read-only key, browser
 * protections, PORT_IN_USE, and the listener coming back with the next daemon.
 */
import { afterAll, afterEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { HttpApi } from "@effect/platform"
import { PmfxApi } from "../../src/shared/Api"
import { makeSandbox, type Sandbox } from "../support/cli"
import { type Daemon, eventually, idleApp, makeHome, startDaemon } from "./daemon"
import { sharedDaemon } from "./sharedDaemon"
import { freeListenerPort as freePort, openWeb, tcp } from "./tcp"

const UNAUTHORIZED = { error: "unauthorized", message: "Invalid or missing API key" }
const READ_ONLY_DENIED = { error: "forbidden", message: "Access denied: read-only API key" }
const KEY = "k-full-0123456789"
const RO_KEY = "k-read-9876543210"

const daemons: Array<Daemon> = []
const sandboxes: Array<Sandbox> = []
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop()
  for (const sandbox of sandboxes) sandbox.cleanup()
})

const start = async (home?: string) => {
  const daemon = await startDaemon(home)
  daemons.push(daemon)
  return daemon
}

/**
 * The daemon of the tests that open the listener and use their own `w-app`: after each test its
 * apps are deleted, and each test opens the listener again on a new port with its settings, which
 * replace the previous ones as a whole (docs/api.md, `PUT /daemon/web`; the tests check the
 * listener's auth and origins themselves). The tests of `PUT /daemon/web`'s own outcomes (a
 * refused port, the settings kept for the next daemon) and of `pmfx web` keep daemons of their own.
 */
const shared = sharedDaemon()

/** The shared daemon with one new app (`w-app`, env SECRET) and its listener open on a new port with `settings`. */
const daemonWithApp = async (settings: Record<string, unknown>) => {
  const daemon = shared()
  const created = await daemon.request(
    "POST",
    "/api/processes",
    idleApp("w-app", { env: { SECRET: "hunter2", MODE: "test" } })
  )
  expect(created.status, created.raw).toBe(201)
  expect((await daemon.request("GET", "/api/processes/w-app/ready?timeout=30s")).status).toBe(200)
  const port = await freePort()
  await openWeb(daemon, { port, ...settings })
  return { daemon, port }
}

const READS: ReadonlyArray<string> = ["/api/processes", "/api/processes/w-app", "/api/status", "/health"]

describe("TCP listener without a key", () => {
  it("serves the same routes openly and reports itself in /api/status", async () => {
    const { daemon, port } = await daemonWithApp({})
    for (const route of ["/", ...READS]) {
      const reply = await tcp(port, "GET", route)
      expect(reply.status, `${route}: ${reply.raw}`).toBe(200)
      // Browsers reach this listener: no sniffing, and answers carrying environments are not cached.
      expect(reply.headers["x-content-type-options"], route).toBe("nosniff")
      expect(reply.headers["cache-control"], route).toBe("no-store")
    }
    const restarted = await tcp(port, "POST", "/api/processes/w-app/restart")
    expect(restarted.status, restarted.raw).toBe(200)
    expect(restarted.body.success).toBe(true)
    const detail = await tcp(port, "GET", "/api/processes/w-app")
    expect(detail.body.config.env.SECRET).toBe("hunter2")
    const status = await daemon.request("GET", "/api/status")
    expect(status.body.web).toEqual({ host: "localhost", port, auth: false })
    // Errors have the same shapes as on the socket.
    const missing = await tcp(port, "GET", "/api/processes/nope")
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe("PROCESS_NOT_FOUND")
  })

  it("does not serve the daemon routes: 404, and the daemon keeps running", async () => {
    const daemon = shared()
    const port = await freePort()
    const opened = await openWeb(daemon, { port })
    expect(opened.body).toEqual({
      host: "localhost",
      port,
      auth: false,
      url: `http://localhost:${port}`,
      listening: true
    })
    for (const [method, route] of [
      ["POST", "/daemon/kill"],
      ["POST", "/daemon/resurrect"],
      ["POST", "/daemon/restart"],
      ["PUT", "/daemon/web"],
      ["POST", "/%64aemon/kill"]
    ] as const) {
      const reply = await tcp(port, method, route)
      expect(reply.status, route).toBe(404)
      expect(reply.body).toEqual({ success: false, error: expect.any(String) })
    }
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect((await daemon.request("GET", "/")).status).toBe(200)
    expect((await tcp(port, "GET", "/api/status")).status).toBe(200)
  })

  it("refuses a foreign Origin on mutating routes and a non-loopback Host header", async () => {
    const { port } = await daemonWithApp({ cors_origins: ["https://dash.example.com"] })
    const foreign = await tcp(port, "POST", "/api/processes/w-app/stop", { origin: "https://evil.example.com" })
    expect(foreign.status).toBe(403)
    expect(foreign.body).toEqual({ error: "forbidden", message: expect.stringContaining("Access denied") })
    expect(foreign.headers["x-content-type-options"]).toBe("nosniff")
    // Reads are not refused for their origin (the browser keeps the answer from the page anyway).
    expect((await tcp(port, "GET", "/api/processes", { origin: "https://evil.example.com" })).status).toBe(200)
    const own = await tcp(port, "POST", "/api/processes/w-app/restart", { origin: `http://localhost:${port}` })
    expect(own.status, own.raw).toBe(200)
    const allowed = await tcp(port, "POST", "/api/processes/w-app/restart", { origin: "https://dash.example.com" })
    expect(allowed.status, allowed.raw).toBe(200)
    expect(allowed.headers["access-control-allow-origin"]).toBe("https://dash.example.com")

    for (const host of ["evil.example.com", `evil.example.com:${port}`, "localhost:1"]) {
      const rebound = await tcp(port, "GET", "/api/processes", { host })
      expect(rebound.status, host).toBe(403)
      expect(rebound.body.error).toBe("forbidden")
    }
    for (const host of [`127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      expect((await tcp(port, "GET", "/api/processes", { host })).status, host).toBe(200)
    }
  })
})

describe("TCP listener with API keys", () => {
  it("requires a valid key in any of the three forms on every route but GET /", async () => {
    const { daemon, port } = await daemonWithApp({ api_key: KEY, read_only_api_key: RO_KEY })
    expect((await daemon.request("GET", "/api/status")).body.web).toEqual({ host: "localhost", port, auth: true })
    expect((await tcp(port, "GET", "/")).status).toBe(200)
    expect((await tcp(port, "GET", "/", { authorization: "Bearer wrong" })).status).toBe(200)

    const denied: ReadonlyArray<Record<string, string | Array<string>>> = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Basic ${KEY}` },
      { authorization: KEY },
      { "x-api-key": "wrong" },
      { authorization: `Bearer ${KEY}`, "x-api-key": "wrong" },
      { authorization: "ApiKey wrong", "x-api-key": KEY },
      // Repeated headers: each copy must carry a valid key.
      { "x-api-key": [KEY, "wrong"] },
      { "x-api-key": ["wrong", KEY] },
      { authorization: [`Bearer ${KEY}`, "Bearer wrong"] }
    ]
    for (const headers of denied) {
      for (const route of READS) {
        const reply = await tcp(port, "GET", route, headers)
        expect(reply.status, `${route} ${JSON.stringify(headers)}`).toBe(401)
        expect(reply.body).toEqual(UNAUTHORIZED)
        expect(reply.headers["www-authenticate"]).toBe('Bearer realm="pmfx"')
      }
      const write = await tcp(port, "POST", "/api/processes/w-app/restart", headers)
      expect(write.status).toBe(401)
      expect(write.body).toEqual(UNAUTHORIZED)
    }
    expect((await tcp(port, "GET", "/api/openapi.json")).status).toBe(401)

    const accepted: ReadonlyArray<Record<string, string | Array<string>>> = [
      { authorization: `Bearer ${KEY}` },
      { authorization: `ApiKey ${KEY}` },
      { authorization: `bearer ${KEY}` },
      { "x-api-key": KEY },
      { authorization: `Bearer ${KEY}`, "x-api-key": KEY },
      { "x-api-key": [KEY, KEY] },
      { authorization: [`Bearer ${KEY}`, `ApiKey ${KEY}`] }
    ]
    for (const headers of accepted) {
      for (const route of READS)
        expect((await tcp(port, "GET", route, headers)).status, `${route} ${JSON.stringify(headers)}`).toBe(200)
      const write = await tcp(port, "POST", "/api/processes/w-app/restart", headers)
      expect(write.status, write.raw).toBe(200)
    }
    const detail = await tcp(port, "GET", "/api/processes/w-app", { "x-api-key": KEY })
    expect(detail.body.config.env).toMatchObject({ SECRET: "hunter2", MODE: "test" })
  })

  it("lets the read-only key read (environments masked) and refuses it every change with 403", async () => {
    const { port } = await daemonWithApp({ api_key: KEY, read_only_api_key: RO_KEY })
    const forms: ReadonlyArray<Record<string, string>> = [
      { authorization: `Bearer ${RO_KEY}` },
      { authorization: `ApiKey ${RO_KEY}` },
      { "x-api-key": RO_KEY }
    ]
    for (const headers of forms) {
      for (const route of READS) expect((await tcp(port, "GET", route, headers)).status, route).toBe(200)
      const detail = await tcp(port, "GET", "/api/processes/w-app", headers)
      expect(Object.keys(detail.body.config.env).length).toBeGreaterThanOrEqual(2)
      for (const value of Object.values(detail.body.config.env)) expect(value).toBe("***")
      expect(detail.raw).not.toContain("hunter2")
      for (const [method, route] of [
        ["POST", "/api/processes/w-app/restart"],
        ["POST", "/api/processes/w-app/stop"],
        ["DELETE", "/api/processes/w-app"]
      ] as const) {
        const reply = await tcp(port, method, route, headers)
        expect(reply.status, `${method} ${route}`).toBe(403)
        expect(reply.body).toEqual(READ_ONLY_DENIED)
      }
    }
    // A read-only key next to the full one gets only read-only rights.
    const mixed = await tcp(port, "POST", "/api/processes/w-app/restart", {
      authorization: `Bearer ${KEY}`,
      "x-api-key": RO_KEY
    })
    expect(mixed.status).toBe(403)
    expect(mixed.body).toEqual(READ_ONLY_DENIED)
    // The app is still running: nothing was changed.
    const rows = (await tcp(port, "GET", "/api/processes", { "x-api-key": KEY })).body as Array<{ status: string }>
    expect(rows.map((row) => row.status)).toEqual(["online"])
  })
})

/**
 * Every endpoint of the API contract (read from it, so a new one is covered) as it is called over
 * TCP, aimed so that passing authentication has no lasting effect: mutating routes name a process
 * that does not exist (404 proves the key was accepted) or send an invalid body.
 */
const EVERY_ENDPOINT: ReadonlyArray<readonly [string, string, unknown]> = (() => {
  const endpoints: Array<readonly [string, string, unknown]> = []
  HttpApi.reflect(PmfxApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      // The daemon routes are not served over TCP; GET / is public (both tested above).
      if (endpoint.path.startsWith("/daemon") || endpoint.path === "/") return
      const target = endpoint.method === "GET" ? "w-app" : "no-such-app"
      const urlPath = endpoint.path.replace(":id", target)
      const withQuery =
        endpoint.name === "deleteByStatus"
          ? `${urlPath}?status=errored`
          : endpoint.name === "ready"
            ? `${urlPath}?timeout=1s`
            : urlPath
      endpoints.push([endpoint.method, withQuery, endpoint.name === "create" ? { name: "" } : undefined])
    }
  })
  return [...endpoints, ["GET", "/api/openapi.json", undefined]]
})()

describe("the auth matrix: every endpoint over TCP", () => {
  it("answers 401 without a valid key, lets every accepted form through, and the read-only key only reads", async () => {
    const { daemon, port } = await daemonWithApp({ api_key: KEY, read_only_api_key: RO_KEY })
    expect(EVERY_ENDPOINT.length).toBeGreaterThanOrEqual(16)
    const denied: ReadonlyArray<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Basic ${KEY}` },
      { "x-api-key": "wrong" },
      { authorization: `ApiKey ${KEY}`, "x-api-key": "wrong" }
    ]
    const full: ReadonlyArray<Record<string, string>> = [
      { authorization: `Bearer ${KEY}` },
      { authorization: `ApiKey ${KEY}` },
      { "x-api-key": KEY },
      { authorization: `ApiKey ${KEY}`, "x-api-key": KEY }
    ]
    const readOnly: ReadonlyArray<Record<string, string>> = [
      { authorization: `Bearer ${RO_KEY}` },
      { "x-api-key": RO_KEY },
      { authorization: `Bearer ${KEY}`, "x-api-key": RO_KEY }
    ]
    for (const [method, route, body] of EVERY_ENDPOINT) {
      const what = `${method} ${route}`
      for (const headers of denied) {
        const reply = await tcp(port, method, route, headers, body)
        expect(reply.status, `${what} ${JSON.stringify(headers)}`).toBe(401)
        expect(reply.body).toEqual(UNAUTHORIZED)
      }
      for (const headers of full) {
        const reply = await tcp(port, method, route, headers, body)
        expect([401, 403, 500], `${what} ${JSON.stringify(headers)}: ${reply.raw}`).not.toContain(reply.status)
      }
      for (const headers of readOnly) {
        const reply = await tcp(port, method, route, headers, body)
        if (method === "GET") expect([401, 403, 500], `${what} read-only: ${reply.raw}`).not.toContain(reply.status)
        else {
          expect(reply.status, `${what} read-only`).toBe(403)
          expect(reply.body).toEqual(READ_ONLY_DENIED)
        }
      }
    }
    // Nothing was changed by any of it: the one app runs with its first process.
    const rows = (await daemon.request("GET", "/api/processes")).body as Array<{
      name: string
      status: string
      restarts: number
    }>
    expect(rows.map((row) => [row.name, row.status, row.restarts])).toEqual([["w-app", "online", 0]])
  })
})

describe("PUT /daemon/web", () => {
  it("answers PORT_IN_USE when the port is taken, and --stop closes the listener", async () => {
    const daemon = await start()
    const port = await freePort()
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen({ port, host: "localhost" }, resolve))
    try {
      const reply = await daemon.request("PUT", "/daemon/web", { host: "localhost", port })
      expect(reply.status).toBe(409)
      expect(reply.body.error.code).toBe("PORT_IN_USE")
      expect(reply.body.error.details.port).toBe(port)
      expect((await daemon.request("GET", "/api/status")).body.web).toBeNull()
    } finally {
      await new Promise((resolve) => blocker.close(resolve))
    }
    const other = await freePort()
    await openWeb(daemon, { port: other })
    const stopped = await daemon.request("PUT", "/daemon/web", { stop: true })
    expect(stopped.status).toBe(200)
    expect(stopped.body).toMatchObject({ port: other, listening: false })
    expect((await daemon.request("GET", "/api/status")).body.web).toBeNull()
    await expect(tcp(other, "GET", "/")).rejects.toThrow()
  })

  it("keeps the settings in state.json (mode 0600) and the next daemon opens the listener again", async () => {
    const home = makeHome()
    const first = await start(home)
    const port = await freePort()
    await openWeb(first, { port, api_key: KEY })
    const stateFile = path.join(home, "state.json")
    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"))
    expect(saved.web).toMatchObject({ host: "localhost", port, apiKey: KEY, corsOrigins: [], verbose: false })
    expect(fs.statSync(stateFile).mode & 0o777).toBe(0o600)

    first.child.kill("SIGTERM")
    expect(await first.exited).toBe(0)
    // Its home is the next daemon's: forget it without removing the home.
    await first.stop({ keepHome: true })
    daemons.splice(daemons.indexOf(first), 1)
    await expect(tcp(port, "GET", "/")).rejects.toThrow()

    const second = await start(home)
    expect(second.pid).not.toBe(first.pid)
    const reply = await eventually(async () => {
      const answer = await tcp(port, "GET", "/api/status", { "x-api-key": KEY })
      return answer.status === 200 ? answer : undefined
    }, "the listener to come back")
    expect(reply.body.pid).toBe(second.pid)
    expect(reply.body.web).toEqual({ host: "localhost", port, auth: true })
    expect((await tcp(port, "GET", "/api/status")).status).toBe(401)
  })
})

describe("pmfx web", () => {
  let sandbox: Sandbox
  afterEach(() => sandbox?.cleanup())

  it("opens the listener, prints the URL and a curl example, and refuses 0.0.0.0 without a key", async () => {
    sandbox = makeSandbox()
    const refused = sandbox.pmfx(["web", "--host", "0.0.0.0"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--allow-insecure")

    const port = await freePort()
    const opened = sandbox.pmfx(["web", "--port", String(port)])
    expect(opened.code, opened.stderr).toBe(0)
    expect(opened.stdout).toContain(`http://localhost:${port}`)
    expect(opened.stdout).toContain(`curl http://localhost:${port}/api/processes`)
    expect(opened.stderr).toContain("warning")
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(200)

    // The key from the environment, and never printed.
    const keyed = sandbox.pmfx(["web", "--port", String(port), "--json"], { PMFX_API_KEY: KEY })
    expect(keyed.code, keyed.stderr).toBe(0)
    expect(JSON.parse(keyed.stdout)).toMatchObject({ port, auth: true, url: `http://localhost:${port}` })
    expect(keyed.stdout + keyed.stderr).not.toContain(KEY)
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(401)
    expect((await tcp(port, "GET", "/api/processes", { authorization: `Bearer ${KEY}` })).status).toBe(200)
    // The curl example names the variable that holds the key, or a placeholder when it was an option.
    const fromEnv = sandbox.pmfx(["web", "--port", String(port)], { PMFX_API_KEY: KEY })
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
    expect(fromEnv.stdout).toContain('curl -H "Authorization: Bearer $PMFX_API_KEY"')
    const fromOption = sandbox.pmfx(["web", "--port", String(port), "--api-key", KEY])
    expect(fromOption.code, fromOption.stderr).toBe(0)
    expect(fromOption.stdout).toContain('curl -H "Authorization: Bearer <your API key>"')
    expect(fromEnv.stdout + fromEnv.stderr + fromOption.stdout + fromOption.stderr).not.toContain(KEY)
    // Running it again without the key does not silently open the keyed listener to everyone.
    const unkeyed = sandbox.pmfx(["web", "--port", String(port)])
    expect(unkeyed.code).toBe(2)
    expect(unkeyed.stderr).toContain(`the listener on localhost:${port} requires an API key`)
    expect(unkeyed.stderr).toContain("--allow-insecure")
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(401)
    const removed = sandbox.pmfx(["web", "--port", String(port), "--allow-insecure"])
    expect(removed.code, removed.stderr).toBe(0)
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(200)

    const stopped = sandbox.pmfx(["web", "--stop"])
    expect(stopped.code, stopped.stderr).toBe(0)
    await expect(tcp(port, "GET", "/")).rejects.toThrow()
  })
})
