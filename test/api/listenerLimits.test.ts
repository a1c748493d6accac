/**
 * Connection limits of both listeners (docs/api.md, "Connection limits"), with the timeouts
 * lowered by `pmfx daemon` options so that the test takes seconds: half-open requests are closed
 * after the header timeout while the daemon keeps answering, a flood beyond the connection cap
 * displaces itself, and a log follow or a WebSocket outlives every timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import { connectWs } from "../support/wsClient"
import { daemonCommand } from "../support/daemonCommand"
import { type Daemon, eventually, makeHome, startDaemon } from "./daemon"
import { freeListenerPort, openWeb, tcp } from "./tcp"

const HEADER_TIMEOUT_MS = 1_000
const REQUEST_TIMEOUT_MS = 2_000
const KEEP_ALIVE_TIMEOUT_MS = 1_000
const MAX_CONNECTIONS = 40

let daemon: Daemon
let port: number
beforeAll(async () => {
  daemon = await startDaemon(undefined, {
    args: [
      `--header-timeout=${HEADER_TIMEOUT_MS}ms`,
      `--request-timeout=${REQUEST_TIMEOUT_MS}ms`,
      `--keep-alive-timeout=${KEEP_ALIVE_TIMEOUT_MS}ms`,
      `--max-connections=${MAX_CONNECTIONS}`
    ]
  })
  port = await freeListenerPort()
  await openWeb(daemon, { port })
  const created = await daemon.request("POST", "/api/processes", {
    name: "ticker",
    script: process.execPath,
    args: ["-e", "setInterval(() => console.log('tick ' + Date.now()), 200)"]
  })
  expect(created.status, created.raw).toBe(201)
})
afterAll(async () => {
  await daemon?.stop()
})

interface HalfOpen {
  readonly socket: net.Socket
  /** What the daemon sent before closing (a 408, or nothing). */
  readonly received: () => string
  readonly closed: () => boolean
}

/** A connection that sends the start of a request head and never the rest. */
const halfOpen = (target: { readonly path: string } | { readonly port: number }): Promise<HalfOpen> =>
  new Promise((resolve, reject) => {
    const socket = "path" in target ? net.connect(target.path) : net.connect(target.port, "localhost")
    let received = ""
    let closed = false
    socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")))
    socket.on("close", () => (closed = true))
    socket.on("error", () => undefined)
    socket.once("connect", () => {
      socket.write("GET /api/processes HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
      resolve({ socket, received: () => received, closed: () => closed })
    })
    socket.once("error", reject)
  })

describe("listener limits", () => {
  it("closes half-open requests after the header timeout, on the socket and on TCP, answering others meanwhile", async () => {
    const opened = [
      ...(await Promise.all(Array.from({ length: 15 }, () => halfOpen({ path: daemon.socket })))),
      ...(await Promise.all(Array.from({ length: 15 }, () => halfOpen({ port }))))
    ]
    // Meanwhile both listeners answer.
    expect((await daemon.request("GET", "/api/processes")).status).toBe(200)
    expect((await tcp(port, "GET", "/api/processes")).status).toBe(200)
    await eventually(
      () => opened.every((connection) => connection.closed()),
      "every half-open connection to be closed",
      20_000
    )
    for (const connection of opened) expect(connection.received()).toMatch(/^(HTTP\/1\.1 408 Request Timeout\r\n|$)/)
    expect((await daemon.request("GET", "/api/processes")).status).toBe(200)
  })

  it("a flood beyond the connection cap displaces itself: the daemon still answers while it lasts", async () => {
    const opened = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS * 3 }, () => halfOpen({ path: daemon.socket }))
    )
    // Each new connection at the cap closed the oldest one that had no request: at most the cap stays.
    await eventually(
      () => opened.filter((connection) => !connection.closed()).length <= MAX_CONNECTIONS,
      "the cap to hold"
    )
    for (let i = 0; i < 5; i++) {
      const reply = await daemon.request("GET", "/api/processes", undefined, {}, { timeoutMs: 5_000 })
      expect(reply.status).toBe(200)
    }
    for (const connection of opened) connection.socket.destroy()
  })

  it("a log follow and a WebSocket outlive the header, request and keep-alive timeouts", async () => {
    const longerThanEveryTimeout = HEADER_TIMEOUT_MS + REQUEST_TIMEOUT_MS + KEEP_ALIVE_TIMEOUT_MS + 500
    const ws = await connectWs(`ws+unix://${daemon.socket}:/ws`)
    const events: Array<number> = []
    let streamClosed = false
    const request = http.request(
      { socketPath: daemon.socket, method: "GET", path: "/api/processes/ticker/logs?follow=true", agent: false },
      (response) => {
        response.on("data", (chunk: Buffer) => {
          if (chunk.toString("utf8").includes("event: log")) events.push(Date.now())
        })
        response.on("close", () => (streamClosed = true))
        response.on("error", () => undefined)
      }
    )
    request.on("error", () => undefined)
    request.end()
    const opened = Date.now()
    await eventually(
      () => events.some((at) => at - opened > longerThanEveryTimeout),
      "log events after every timeout has passed",
      30_000
    )
    expect(streamClosed).toBe(false)
    expect(ws.isClosed()).toBe(false)
    ws.send({ type: "ping" })
    await ws.next((message) => message.type === "pong", "pong after every timeout has passed")
    request.destroy()
    ws.close()
  })
})

describe("listener limit options", () => {
  it.each([
    [
      ["--header-timeout", "soon"],
      '--header-timeout: "soon" is not a duration like 500ms, 10s, 1m or 2h (a bare number is milliseconds)'
    ],
    [["--header-timeout=0"], '--header-timeout must be between 1ms and 1d, not "0"'],
    [["--max-connections=0"], '--max-connections must be a whole number from 1 to 65535, not "0"'],
    [
      ["--header-timeout=20s", "--request-timeout=5s"],
      "--request-timeout (5s) cannot be shorter than --header-timeout (20s)"
    ]
  ])("refuses %j with a usage error and starts nothing", (args, message) => {
    const home = makeHome()
    try {
      const [node, ...daemonArgs] = daemonCommand(args)
      const result = spawnSync(node, daemonArgs, {
        env: { PMFX_HOME: home, PATH: process.env.PATH },
        encoding: "utf8",
        timeout: 20_000
      })
      expect(result.status).toBe(2)
      expect(result.stderr).toContain(`pmfx daemon: ${message}`)
      expect(fs.existsSync(`${home}/daemon.pid`)).toBe(false)
    } finally {
      fs.rmSync(home, { recursive: true, force: true })
    }
  })
})
