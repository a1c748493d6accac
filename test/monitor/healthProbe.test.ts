import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, type Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { httpProbe, scriptProbe } from "../../src/monitor/healthProbe"
import { liveGroupMembers } from "../../src/monitor/procfs"
import { eventually, tempDir, writeScript } from "./processes"

/** A local HTTP server answering with `handler`, closed with the scope; yields its base URL. */
const serve = (
  handler: http.RequestListener
): Effect.Effect<{ readonly url: string; readonly server: http.Server }, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<http.Server>((resume) => {
      const server = http.createServer(handler)
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map((server) => ({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })))

/** A port nothing listens on: bound, then released. */
const closedPort = Effect.async<number>((resume) => {
  const server = http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(port)))
  })
})

const openConnections = (server: http.Server): Effect.Effect<number> =>
  Effect.async<number>((resume) => {
    server.getConnections((_error, count) => resume(Effect.succeed(count)))
  })

describe("httpProbe", () => {
  it.scopedLive("is healthy on a 2xx answer", () =>
    Effect.gen(function* () {
      const { url } = yield* serve((_request, response) => response.writeHead(204).end())
      const result = yield* httpProbe(`${url}/health`, 2_000)
      expect(result).toMatchObject({ healthy: true, detail: "HTTP 204" })
      expect(Number.isInteger(result.response_time)).toBe(true)
      expect(result.response_time).toBeGreaterThanOrEqual(0)
      expect(result.response_time).toBeLessThan(2_000)
    })
  )

  it.scopedLive("is healthy on 200 without downloading a large body", () =>
    Effect.gen(function* () {
      const { url } = yield* serve((_request, response) => {
        response.writeHead(200)
        // A body that never ends: the probe must not wait for it.
        const timer = setInterval(() => response.write("x".repeat(1024)), 10)
        response.on("close", () => clearInterval(timer))
      })
      expect(yield* httpProbe(url, 2_000)).toMatchObject({ healthy: true, detail: "HTTP 200" })
    })
  )

  it.scopedLive("is unhealthy on 503", () =>
    Effect.gen(function* () {
      const { url } = yield* serve((_request, response) => response.writeHead(503).end("down"))
      expect(yield* httpProbe(url, 2_000)).toMatchObject({ healthy: false, detail: "HTTP 503" })
    })
  )

  it.scopedLive("is unhealthy on a redirect", () =>
    Effect.gen(function* () {
      const { url } = yield* serve((_request, response) => response.writeHead(302, { location: "/x" }).end())
      expect(yield* httpProbe(url, 2_000)).toMatchObject({ healthy: false, detail: "HTTP 302" })
    })
  )

  it.live("is unhealthy on a refused connection", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const result = yield* httpProbe(`http://127.0.0.1:${port}/`, 2_000)
      expect(result.healthy).toBe(false)
      expect(result.detail).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`)
    })
  )

  it.live("names the refused connection for localhost too (dual stack)", () =>
    Effect.gen(function* () {
      const port = yield* closedPort
      const result = yield* httpProbe(`http://localhost:${port}/`, 2_000)
      expect(result.healthy).toBe(false)
      expect(result.detail).toContain("ECONNREFUSED")
    })
  )

  it.scopedLive("times out on a server that never answers, and closes the connection", () =>
    Effect.gen(function* () {
      const { url, server } = yield* serve(() => {
        // Never answers.
      })
      const result = yield* httpProbe(url, 300)
      expect(result).toMatchObject({ healthy: false, detail: "timed out after 300ms" })
      expect(result.response_time).toBeGreaterThanOrEqual(300)
      expect(result.response_time).toBeLessThan(5_000)
      yield* eventually(openConnections(server), (count) => count === 0, "the probe's connection closed")
    })
  )

  it.scopedLive("aborts the request when interrupted", () =>
    Effect.gen(function* () {
      const { url, server } = yield* serve(() => {
        // Never answers.
      })
      const probe = yield* Effect.fork(httpProbe(url, 30_000))
      yield* eventually(openConnections(server), (count) => count === 1, "the probe connected")
      yield* Fiber.interrupt(probe)
      yield* eventually(openConnections(server), (count) => count === 0, "the probe's connection closed")
    })
  )

  it.live("is unhealthy on a malformed URL or another protocol", () =>
    Effect.gen(function* () {
      expect(yield* httpProbe("not a url", 1_000)).toMatchObject({ healthy: false, detail: "invalid URL not a url" })
      expect(yield* httpProbe("ftp://127.0.0.1/", 1_000)).toMatchObject({
        healthy: false,
        detail: "unsupported protocol ftp:"
      })
    })
  )
})

describe("scriptProbe", () => {
  const run = (dir: string, script: string, timeoutMs = 20_000) =>
    scriptProbe(script, { cwd: dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeoutMs })

  it.scopedLive("is healthy when the script exits 0", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const result = yield* run(dir, writeScript(dir, "ok.sh", "exit 0"))
      expect(result).toMatchObject({ healthy: true, detail: "exit code 0" })
      expect(Number.isInteger(result.response_time)).toBe(true)
    })
  )

  it.scopedLive("is unhealthy when the script exits non-zero", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      expect(yield* run(dir, writeScript(dir, "fail.sh", "exit 1"))).toMatchObject({
        healthy: false,
        detail: "exit code 1"
      })
    })
  )

  it.scopedLive("runs in cwd with exactly the given environment", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      fs.writeFileSync(path.join(dir, "marker"), "")
      const script = writeScript(dir, "env.sh", `test -f ./marker && test "$CHECK" = yes && test -z "$HOME"`)
      expect(yield* scriptProbe(script, { cwd: dir, env: { CHECK: "yes" }, timeoutMs: 20_000 })).toMatchObject({
        healthy: true
      })
      expect(yield* scriptProbe(script, { cwd: dir, env: { CHECK: "no" }, timeoutMs: 20_000 })).toMatchObject({
        healthy: false,
        detail: "exit code 1"
      })
    })
  )

  it.scopedLive("kills the script's whole process group when it runs past the timeout", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const pidFile = path.join(dir, "pid")
      // The script and a background child of it both outlive the timeout.
      const script = writeScript(dir, "slow.sh", `echo $$ > "${pidFile}"\nsleep 30 &\nsleep 30`)
      // A second is long enough for a loaded machine's shell to write its pid first.
      const result = yield* run(dir, script, 1_000)
      expect(result).toMatchObject({ healthy: false, detail: "timed out after 1000ms" })
      expect(result.response_time).toBeGreaterThanOrEqual(1_000)
      const pgid = Number(fs.readFileSync(pidFile, "utf8"))
      expect(pgid).toBeGreaterThan(1)
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 0, "the script's group gone")
    })
  )

  it.scopedLive("kills the script's group when interrupted", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const pidFile = path.join(dir, "pid")
      const script = writeScript(dir, "slow.sh", `echo $$ > "${pidFile}"\nsleep 30 &\nsleep 30`)
      const probe = yield* Effect.fork(run(dir, script, 60_000))
      const pgid = yield* eventually(
        Effect.sync(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8")) : 0)),
        (pid) => pid > 1,
        "the script started"
      )
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 3, "the script and both sleeps")
      yield* Fiber.interrupt(probe)
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 0, "the script's group gone")
    })
  )

  it.scopedLive("leaves nothing behind after a script that exits with background children", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const pidFile = path.join(dir, "pid")
      const script = writeScript(dir, "leaky.sh", `echo $$ > "${pidFile}"\nsleep 30 &\nexit 0`)
      expect(yield* run(dir, script)).toMatchObject({ healthy: true })
      const pgid = Number(fs.readFileSync(pidFile, "utf8"))
      yield* eventually(liveGroupMembers(pgid), (members) => members.length === 0, "the script's group gone")
    })
  )

  it.scopedLive("is unhealthy when the script is missing or not executable", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const missing = yield* run(dir, path.join(dir, "missing.sh"))
      expect(missing.healthy).toBe(false)
      expect(missing.detail).toContain("ENOENT")
      const plain = path.join(dir, "plain.sh")
      fs.writeFileSync(plain, "exit 0\n", { mode: 0o644 })
      const notExecutable = yield* run(dir, plain)
      expect(notExecutable.healthy).toBe(false)
      expect(notExecutable.detail).toContain("EACCES")
    })
  )
})
