/**
 * The listeners' connections check (src/daemon/connectionsCheckWhileConnected.ts): Node's timer
 * that enforces the header and request timeouts is stopped while a listener has no connection, and
 * runs again from the first one — a half-open request after an idle stretch still gets its 408.
 * Node's timer is read through the same symbol the daemon uses, to show it really is stopped.
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import type * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { limitedServer } from "../../src/daemon/listenerLimits"
import { eventually } from "../api/daemon"

const HEADER_TIMEOUT_MS = 500

/** Whether Node's connections-check timer of `server` is running (false: stopped or absent). */
const checkRuns = (server: http.Server): boolean => {
  const key = Object.getOwnPropertySymbols(server).find(
    (symbol) => symbol.description === "http.server.connectionsCheckingInterval"
  )
  const timer = key === undefined ? undefined : (server as unknown as Record<symbol, unknown>)[key]
  return typeof timer === "object" && timer !== null && (timer as { _destroyed?: boolean })._destroyed === false
}

/** Sends half a request head; resolves what the server sent once it closes the connection. */
const halfOpenAnswer = (socketPath: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(socketPath)
    let received = ""
    socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nHost: pmfx\r\n"))
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
    socket.on("error", reject)
    socket.on("close", () => resolve(received))
  })

let dir: string | undefined
let server: http.Server | undefined
afterEach(async () => {
  await new Promise<void>((resolve) => (server?.listening ? server.close(() => resolve()) : resolve()))
  server?.closeAllConnections()
  if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  server = undefined
  dir = undefined
})

describe("the connections check of a listener", () => {
  it("is stopped while nobody is connected, and a half-open request after an idle stretch still gets 408", async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-check-"))
    const socketPath = path.join(dir, "s.sock")
    const listening = limitedServer(
      { headerTimeoutMs: HEADER_TIMEOUT_MS, requestTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, maxConnections: 32 },
      "test listener"
    )
    server = listening
    listening.on("request", (_request: http.IncomingMessage, response: http.ServerResponse) => response.end("ok"))
    await new Promise<void>((resolve) => listening.listen(socketPath, resolve))
    expect(checkRuns(listening)).toBe(false)

    // Twice: the check starts again with each first connection and stops when the last one closes.
    for (const round of [1, 2]) {
      const answer = halfOpenAnswer(socketPath)
      await eventually(() => checkRuns(listening), `round ${round}: the check runs while a client is connected`)
      expect(await answer, `round ${round}`).toMatch(/^HTTP\/1\.1 408 /)
      await eventually(() => !checkRuns(listening), `round ${round}: the check stops once nobody is connected`)
    }
  })
})
