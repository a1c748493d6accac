/**
 * `pmfx web --verbose` (docs/api.md, docs/architecture.md §10): each TCP request is logged to daemon.log with its method,
 * path, status and time — never its headers (the key) nor its query string.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { randomPortBase } from "../support/ports"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.once("error", () => resolve(false))
    server.listen({ port, host: "127.0.0.1" }, () => server.close(() => resolve(true)))
  })

const freePort = async (): Promise<number> => {
  for (;;) {
    const port = randomPortBase()
    if (await portIsFree(port)) return port
  }
}

/** A GET to the listener on localhost; resolves with the status. */
const get = (port: number, urlPath: string, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "localhost",
        port,
        method: "GET",
        path: urlPath,
        headers: { host: `localhost:${port}`, ...headers },
        agent: false
      },
      (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      }
    )
    req.on("error", reject)
    req.setTimeout(15_000, () => req.destroy(new Error(`GET ${urlPath}: no answer`)))
    req.end()
  })

const random = () => Math.random().toString(36).slice(2)

describe("pmfx web --verbose", () => {
  it("logs method, path, status and time of each request to daemon.log, never the key or the query", async () => {
    const key = `k-${random()}-${random()}`
    const wrongKey = `w-${random()}-${random()}`
    const needle = `secret-${random()}`
    const port = await freePort()
    // The daemon this starts runs in the background and writes daemon.log, as for any user.
    const opened = sandbox.pmfx(["web", "--verbose", "--api-key", key, "--port", String(port)])
    expect(opened.code).toBe(0)

    expect(await get(port, "/api/processes", { authorization: `Bearer ${key}` })).toBe(200)
    expect(await get(port, "/api/processes", { "x-api-key": wrongKey })).toBe(401)
    expect(await get(port, `/api/processes/nope/logs?grep=${needle}&lines=5`, { "x-api-key": key })).toBe(404)

    const log = path.join(sandbox.home, "daemon.log")
    const expected = [
      /\bweb GET \/api\/processes 200 \d+ms\b/,
      /\bweb GET \/api\/processes 401 \d+ms\b/,
      /\bweb GET \/api\/processes\/nope\/logs 404 \d+ms\b/
    ]
    await waitFor(
      () => expected.every((line) => line.test(fs.readFileSync(log, "utf8"))),
      "the request lines in daemon.log"
    )
    const text = fs.readFileSync(log, "utf8")
    expect(text).not.toContain(key)
    expect(text).not.toContain(wrongKey)
    expect(text).not.toContain(needle)
    expect(text).not.toContain("grep=")
    expect(text).not.toContain("lines=5")
  })
})
