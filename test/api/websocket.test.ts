/**
 * `GET /ws` (docs/api.md, docs/architecture.md §9): the live feed over the TCP listener — `process_list` on connect,
 * `process_status` on changes, metrics each sample, `log` after `subscribe`; the key by header or
 * first message; Origin checks; a client that stops reading is dropped while another keeps
 * receiving; bad client messages get `error` messages and leave the session and the daemon up.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { connectWs, type WsClient, type WsMessage } from "../support/wsClient"
import { type Daemon, eventually, idleApp, startDaemon } from "./daemon"
import { sharedDaemon } from "./sharedDaemon"
import { freeListenerPort as freePort } from "./tcp"

const KEY = "ws-full-key-0123456789"
const RO_KEY = "ws-read-key-9876543210"
const FIXTURES = path.resolve(__dirname, "../fixtures")

const daemons: Array<Daemon> = []
const clients: Array<WsClient> = []
const closeClients = () => {
  for (const client of clients.splice(0)) client.close()
}
afterAll(async () => {
  closeClients()
  for (const daemon of daemons) await daemon.stop()
})

/**
 * The daemon of the tests that only need their own apps on a listener with the default settings:
 * after each test its clients are closed and its apps deleted, so each starts from an empty table
 * (ids keep counting up: the tests read them with `idOf`). The tests that set keys or origins, or
 * stop the daemon, start one of their own (`own: true`).
 */
const shared = sharedDaemon(closeClients)

/**
 * A daemon with `apps` ready and its TCP listener open (on a new port) with `settings`: the
 * file's shared daemon, or with `own` a new one.
 */
const daemonWith = async (
  apps: ReadonlyArray<Record<string, unknown>>,
  settings: Record<string, unknown> = {},
  options: { readonly own?: boolean } = {}
) => {
  let daemon: Daemon
  if (options.own === true) {
    daemon = await startDaemon()
    daemons.push(daemon)
  } else daemon = shared()
  for (const app of apps) {
    const created = await daemon.request("POST", "/api/processes", app)
    expect(created.status, created.raw).toBe(201)
    expect((await daemon.request("GET", `/api/processes/${String(app["name"])}/ready?timeout=30s`)).status).toBe(200)
  }
  const port = await freePort()
  const opened = await daemon.request("PUT", "/daemon/web", { host: "localhost", port, ...settings })
  expect(opened.status, opened.raw).toBe(200)
  return { daemon, url: `ws://localhost:${port}/ws`, port }
}

/** The id the daemon gave the app `name` (a shared daemon's ids do not start at 0). */
const idOf = async (daemon: Daemon, name: string): Promise<number> => {
  const rows = (await daemon.request("GET", "/api/processes")).body as Array<{ id: number; name: string }>
  const row = rows.find((candidate) => candidate.name === name)
  if (row === undefined) throw new Error(`no app ${name} in ${JSON.stringify(rows)}`)
  return row.id
}

const connect = async (url: string, headers: Record<string, string> = {}) => {
  const client = await connectWs(url, headers)
  clients.push(client)
  return client
}

const ofType = (type: string) => (message: WsMessage) => message.type === type

describe("the live feed", () => {
  it("sends process_list on connect, then process_status as an app is stopped and started", async () => {
    const { daemon, url } = await daemonWith([idleApp("ws-a"), idleApp("ws-b")])
    const idA = await idOf(daemon, "ws-a")
    const client = await connect(url)
    const list = await client.next(ofType("process_list"), "process_list")
    expect(client.messages[0]?.type).toBe("process_list")
    expect(list.data.map((row: { name: string }) => row.name)).toEqual(["ws-a", "ws-b"])
    expect(list.data[0]).toMatchObject({ id: idA, status: "online", restarts: 0 })
    expect(typeof list.timestamp).toBe("string")

    const from = client.messages.length
    expect((await daemon.request("POST", "/api/processes/ws-a/stop")).status).toBe(200)
    const stopped = await client.next(
      (m) => m.type === "process_status" && m.data.name === "ws-a" && m.data.status === "stopped",
      "ws-a stopped",
      { from }
    )
    expect(stopped.data).toMatchObject({ id: idA, previous_status: "stopping", pid: null })
    expect((await daemon.request("POST", "/api/processes/ws-a/start")).status).toBe(200)
    const online = await client.next(
      (m) => m.type === "process_status" && m.data.name === "ws-a" && m.data.status === "online",
      "ws-a online",
      { from }
    )
    expect(online.data.pid).toEqual(expect.any(Number))
    // The other app's process is untouched.
    expect((await daemon.request("GET", "/api/processes/ws-b")).body.status).toBe("online")
  })

  it("sends process_metrics and system_metrics with every sample, and a new process_list when apps are added", async () => {
    const { daemon, url } = await daemonWith([idleApp("ws-m")])
    const idM = await idOf(daemon, "ws-m")
    const client = await connect(url)
    const metrics = await client.next(ofType("process_metrics"), "process_metrics")
    expect(metrics.data.processes).toEqual([
      expect.objectContaining({
        id: idM,
        name: "ws-m",
        cpu_usage: expect.any(Number),
        memory_usage: expect.any(Number),
        uptime: expect.any(String),
        restarts: 0
      })
    ])
    const system = await client.next(ofType("system_metrics"), "system_metrics")
    expect(system.data).toMatchObject({
      cpu: { cores: expect.any(Number) },
      memory: { total: expect.any(Number) },
      disk: { path: daemon.home }
    })

    const from = client.messages.length
    expect((await daemon.request("POST", "/api/processes", idleApp("ws-added"))).status).toBe(201)
    const list = await client.next(
      (m) => m.type === "process_list" && m.data.some((row: { name: string }) => row.name === "ws-added"),
      "a list with ws-added",
      { from }
    )
    expect(list.data).toHaveLength(2)
  })

  it("sends every row in process_metrics: one with no process has 0 cpu and memory", async () => {
    const { daemon, url } = await daemonWith([idleApp("ws-run"), idleApp("ws-halt")])
    expect((await daemon.request("POST", "/api/processes/ws-halt/stop")).status).toBe(200)
    const [idRun, idHalt] = [await idOf(daemon, "ws-run"), await idOf(daemon, "ws-halt")]
    const client = await connect(url)
    await client.next(ofType("process_list"), "process_list")
    const metrics = await client.next(ofType("process_metrics"), "process_metrics")
    expect(metrics.data.processes).toEqual([
      {
        id: idRun,
        name: "ws-run",
        instance: 0,
        cpu_usage: expect.any(Number),
        memory_usage: expect.any(Number),
        uptime: expect.any(String),
        restarts: 0
      },
      { id: idHalt, name: "ws-halt", instance: 0, cpu_usage: 0, memory_usage: 0, uptime: "0h 0m 0s", restarts: 0 }
    ])
    expect(metrics.data.processes[0].memory_usage).toBeGreaterThan(0)
  })

  it("sends log lines only after subscribe, for the ids asked, until unsubscribe", async () => {
    const talker = (name: string) => ({
      name,
      script: process.execPath,
      args: ["-e", `let n = 0; setInterval(() => console.log("${name} says " + n++), 100)`]
    })
    const { daemon, url } = await daemonWith([talker("ws-talk"), talker("ws-other")])
    const idTalk = await idOf(daemon, "ws-talk")
    const client = await connect(url)
    // A metrics sample passes before any log line could: lines were not sent unasked.
    await client.next(ofType("process_metrics"), "a metrics sample")
    expect(client.messages.filter(ofType("log"))).toEqual([])

    client.send({ type: "subscribe", channels: ["logs"], ids: ["ws-talk"] })
    const subscribed = await client.next(ofType("subscribed"), "subscribed")
    expect(subscribed.data).toEqual({ channels: ["logs"], ids: [idTalk] })
    const line = await client.next(ofType("log"), "a log line")
    expect(line.data).toMatchObject({
      id: idTalk,
      name: "ws-talk",
      instance: 0,
      stream: "out",
      level: "info",
      message: expect.stringMatching(/^ws-talk says \d+$/)
    })
    // Wait for a few more lines, then check none came from the other app.
    await client.next((m) => m.type === "log" && client.messages.filter(ofType("log")).length >= 5, "five log lines")
    expect(client.messages.filter((m) => m.type === "log" && m.data.name !== "ws-talk")).toEqual([])

    // There is no unsubscribing from some apps: `ids` is refused, and the lines keep coming.
    let from = client.messages.length
    client.send({ type: "unsubscribe", channels: ["logs"], ids: ["ws-talk"] })
    const refused = await client.next(ofType("error"), "an error for unsubscribe with ids", { from })
    expect(refused.data).toMatchObject({
      code: "BAD_REQUEST",
      details: { field: "message", reason: "unsubscribe takes no ids: it ends the whole log subscription" }
    })
    from = client.messages.length
    await client.next(ofType("log"), "a log line after the refused unsubscribe", { from })

    client.send({ type: "unsubscribe", channels: ["logs"] })
    const unsubscribed = await client.next(ofType("unsubscribed"), "unsubscribed")
    expect(unsubscribed.data).toEqual({ channels: ["logs"], ids: null })
    const after = client.messages.length
    // Two samples later no line has arrived.
    await client.next(ofType("process_metrics"), "a sample", { from: after })
    const second = client.messages.length
    await client.next(ofType("process_metrics"), "another sample", { from: second })
    expect(client.messages.slice(second).filter(ofType("log"))).toEqual([])
  })

  it("sends a process_crash alert and the errored status when an app crashes", async () => {
    const { daemon, url } = await daemonWith([])
    const client = await connect(url)
    await client.next(ofType("process_list"), "process_list")
    const created = await daemon.request("POST", "/api/processes", {
      name: "ws-crash",
      script: path.join(FIXTURES, "crash-after.js"),
      env: { CRASH_AFTER_MS: "200" },
      max_restarts: 0
    })
    expect(created.status, created.raw).toBe(201)
    const idCrash = await idOf(daemon, "ws-crash")
    const alert = await client.next(
      (m) => m.type === "alert" && m.data.kind === "process_crash",
      "a process_crash alert"
    )
    expect(alert.data).toMatchObject({
      process: { id: idCrash, name: "ws-crash", instance: 0 },
      message: expect.stringContaining("exited with code 1"),
      data: { exit_code: 1, signal: null, pid: expect.any(Number) }
    })
    const errored = await client.next(
      (m) => m.type === "process_status" && m.data.status === "errored",
      "ws-crash errored"
    )
    expect(errored.data).toMatchObject({ name: "ws-crash", exit_code: 1 })
  })

  it("answers bad client messages with error messages and keeps the session", async () => {
    const { daemon, url } = await daemonWith([idleApp("ws-bad")])
    const client = await connect(url)
    await client.next(ofType("process_list"), "process_list")

    const examples =
      'send {"type":"subscribe","channels":["logs"]}, {"type":"unsubscribe","channels":["logs"]} or {"type":"ping"}'
    /** The `error` a raw message gets: a short reason and a suggestion, as the HTTP API's BAD_REQUEST. */
    const errorFor = async (raw: string) => {
      const from = client.messages.length
      client.socket.send(raw)
      return (await client.next(ofType("error"), `an error for ${raw}`, { from })).data
    }
    expect(await errorFor("garbage")).toEqual({
      code: "BAD_REQUEST",
      message: "Invalid message: not JSON",
      details: {
        field: "message",
        reason: "not JSON",
        suggestion: 'send one JSON object per message, like {"type":"ping"}'
      }
    })
    expect(await errorFor('{"type":"frob"}')).toEqual({
      code: "BAD_REQUEST",
      message: 'Invalid message: unknown type "frob"; expected one of auth, subscribe, unsubscribe, ping',
      details: {
        field: "message",
        reason: 'unknown type "frob"; expected one of auth, subscribe, unsubscribe, ping',
        suggestion: examples
      }
    })
    for (const channels of ['["metrics"]', '["everything"]', "[]", '"logs"']) {
      expect((await errorFor(`{"type":"subscribe","channels":${channels}}`)).details).toEqual({
        field: "message",
        reason: 'channels must be ["logs"]',
        suggestion:
          'send "channels": ["logs"]; log lines are the only channel to subscribe to, everything else comes without asking'
      })
    }
    expect((await errorFor('{"type":"subscribe"}')).details.reason).toBe('channels must be ["logs"]')
    expect((await errorFor('{"type":"subscribe","channels":["logs"],"ids":"ws-bad"}')).details.reason).toBe(
      "ids must be an array of at most 1000 process ids or names"
    )
    expect((await errorFor('{"type":"subscribe","channels":["logs"],"id":["ws-bad"]}')).details).toEqual({
      field: "message",
      reason: 'unknown field "id" in a subscribe message',
      suggestion: 'did you mean "ids"?'
    })
    expect((await errorFor('["ping"]')).details.reason).toBe("not a JSON object")
    expect((await errorFor('{"kind":"ping"}')).details.reason).toBe('no "type" (a string)')
    // No Schema text leaks into what a client reads.
    expect(JSON.stringify(client.messages.filter(ofType("error")))).not.toMatch(/readonly|parseJson|minItems|Expected/)

    let from = client.messages.length
    from = client.messages.length
    client.send({ type: "subscribe", channels: ["logs"], ids: ["no-such-app"] })
    const notFound = await client.next(ofType("error"), "an error for an unknown app", { from })
    expect(notFound.data).toMatchObject({ code: "PROCESS_NOT_FOUND", details: { process_id: "no-such-app" } })

    from = client.messages.length
    client.socket.send("x".repeat(70 * 1024))
    expect((await client.next(ofType("error"), "an error for a huge message", { from })).data).toEqual({
      code: "BAD_REQUEST",
      message: "Invalid message: too large",
      details: {
        field: "message",
        reason: "too large",
        suggestion: "send at most 65536 bytes per message; client messages are small"
      }
    })

    // A tag on a ping is no error: it is answered.
    from = client.messages.length
    client.send({ type: "ping", id: 7 })
    await client.next(ofType("pong"), "pong", { from })
    expect(client.messages.slice(from).filter((message) => message.type === "error")).toEqual([])
    expect(client.isClosed()).toBe(false)
    expect((await daemon.request("GET", "/api/processes/ws-bad")).body.status).toBe("online")
  })

  it("answers a plain GET /ws with 426 and another method with 405", async () => {
    const { daemon } = await daemonWith([])
    const plain = await daemon.request("GET", "/ws")
    expect(plain.status).toBe(426)
    expect(plain.body).toEqual({ success: false, error: expect.stringContaining("WebSocket") })
    const post = await daemon.request("POST", "/ws", {})
    expect(post.status).toBe(405)
    expect((await daemon.request("GET", "/api/status")).status).toBe(200)
  }, 120_000)
})

describe("the feed with an API key", () => {
  it("gives no process data before the key, and the feed after {type:auth} with a valid key", async () => {
    const { daemon, url } = await daemonWith(
      [idleApp("ws-k")],
      { api_key: KEY, read_only_api_key: RO_KEY },
      { own: true }
    )
    const silent = await connect(url)
    const keyed = await connect(url, { authorization: `Bearer ${KEY}` })
    await keyed.next(ofType("process_list"), "process_list with a header key")
    // While the keyed client gets two samples, the one without a key gets nothing at all.
    await keyed.next(ofType("process_metrics"), "a sample")
    const from = keyed.messages.length
    await keyed.next(ofType("process_metrics"), "another sample", { from })
    expect(silent.messages).toEqual([])

    silent.send({ type: "auth", key: RO_KEY })
    expect((await silent.next(ofType("auth"), "auth accepted")).data).toEqual({ authenticated: true, read_only: true })
    const list = await silent.next(ofType("process_list"), "process_list after auth")
    expect(list.data[0].name).toBe("ws-k")
    // A later wrong key is not "accepted"; the session goes on with its first key.
    let from2 = silent.messages.length
    silent.send({ type: "auth", key: "not-the-key" })
    expect((await silent.next(ofType("error"), "a wrong second key", { from: from2 })).data).toMatchObject({
      code: "UNAUTHORIZED"
    })
    from2 = silent.messages.length
    silent.send({ type: "ping" })
    await silent.next(ofType("pong"), "pong after the wrong key", { from: from2 })
    expect(silent.isClosed()).toBe(false)
    expect(daemon.output()).not.toContain(KEY)
  })

  it("closes a session whose first message is not a valid key, with no process data", async () => {
    const { url } = await daemonWith([idleApp("ws-x")], { api_key: KEY }, { own: true })
    const wrong = await connect(url)
    wrong.send({ type: "auth", key: "not-the-key" })
    expect(await wrong.closed).toBe(4401)
    expect(wrong.messages.map((m) => m.type)).toEqual(["error"])
    expect(wrong.messages[0]!.data).toMatchObject({ code: "UNAUTHORIZED" })
    expect(JSON.stringify(wrong.messages)).not.toContain("not-the-key")

    const other = await connect(url)
    other.send({ type: "subscribe", channels: ["logs"] })
    expect(await other.closed).toBe(4401)
    expect(other.messages.map((m) => m.type)).toEqual(["error"])

    // Every key form works on the handshake; a wrong header key is refused before the upgrade.
    const headerForms: ReadonlyArray<Record<string, string>> = [
      { authorization: `ApiKey ${KEY}` },
      { "x-api-key": KEY }
    ]
    for (const headers of headerForms) {
      const client = await connect(url, headers)
      await client.next(ofType("process_list"), `process_list with ${Object.keys(headers)[0]}`)
    }
    await expect(connectWs(url, { "x-api-key": "wrong" })).rejects.toThrow("handshake refused: 401")
  })
})

describe("browser protections on /ws", () => {
  it("refuses a foreign Origin and accepts the listener's own and --cors-origin ones", async () => {
    const { url, port } = await daemonWith([], { cors_origins: ["https://dash.example"] }, { own: true })
    await expect(connectWs(url, { origin: "https://evil.example" })).rejects.toThrow("handshake refused: 403")
    const own = await connect(url, { origin: `http://localhost:${port}` })
    await own.next(ofType("process_list"), "process_list for the own origin")
    const allowed = await connect(url, { origin: "https://dash.example" })
    await allowed.next(ofType("process_list"), "process_list for the allowed origin")
  })
})

describe("closing the listener", () => {
  it("ends its sessions with 1001 (going away), even one that stopped reading, and the daemon still stops cleanly", async () => {
    const { daemon, url } = await daemonWith([idleApp("ws-close")], {}, { own: true })
    const reading = await connect(url)
    const stalled = await connect(url)
    await reading.next(ofType("process_list"), "process_list")
    await stalled.next(ofType("process_list"), "process_list")
    stalled.socket.pause()
    const closed = await daemon.request("PUT", "/daemon/web", { stop: true }, {}, { timeoutMs: 15_000 })
    expect(closed.status, closed.raw).toBe(200)
    expect(await reading.closed).toBe(1001)
    stalled.socket.resume()
    // Its close frame waits behind what it did not read; it may be dropped (1006) before it reads it.
    expect([1001, 1006]).toContain(await stalled.closed)
    // A session on the socket does not keep the daemon from stopping.
    const local = await connect(`ws+unix://${daemon.socket}:/ws`)
    await local.next(ofType("process_list"), "process_list on the socket")
    await daemon.stop()
    expect(await daemon.exited).toBe(0)
    expect(await local.closed).toBe(1001)
  })

  it("ends its sessions with 1001 when it is re-opened with other settings", async () => {
    const { daemon, url } = await daemonWith([])
    const client = await connect(url)
    await client.next(ofType("process_list"), "process_list")
    const port = await freePort()
    const reopened = await daemon.request("PUT", "/daemon/web", { host: "localhost", port }, {}, { timeoutMs: 15_000 })
    expect(reopened.status, reopened.raw).toBe(200)
    expect(await client.closed).toBe(1001)
    const fresh = await connect(`ws://localhost:${port}/ws`)
    await fresh.next(ofType("process_list"), "process_list on the new listener")
  })
})

describe("slow clients", () => {
  it("disconnects a client that stops reading while another keeps receiving", async () => {
    const { daemon, url } = await daemonWith([])
    const reader = await connect(url)
    const stalled = await connect(url)
    await reader.next(ofType("process_list"), "process_list")
    await stalled.next(ofType("process_list"), "process_list")
    for (const client of [reader, stalled]) {
      client.send({ type: "subscribe", channels: ["logs"] })
      await client.next(ofType("subscribed"), "subscribed")
    }
    // The stalled client stops reading its socket: what the daemon sends piles up.
    stalled.socket.pause()
    const flood = await daemon.request("POST", "/api/processes", {
      name: "ws-flood",
      script: path.join(FIXTURES, "flood-lines.js"),
      env: { LINE_BYTES: "8192" },
      max_log_files: 1,
      max_log_size: "50M"
    })
    expect(flood.status, flood.raw).toBe(201)
    // A paused socket does not notice its connection closing, so the daemon's log tells first.
    await eventually(
      () => daemon.output().includes("websocket client disconnected: it stopped reading"),
      "the stalled client to be cut off",
      90_000
    )
    stalled.socket.resume()
    expect(await stalled.closed).toBe(1006)
    // The reader still gets lines written after the other was cut off.
    const from = reader.messages.length
    await reader.next((m) => m.type === "log" && m.data.name === "ws-flood", "a log line after the cut", { from })
    expect(reader.isClosed()).toBe(false)
    expect((await daemon.request("POST", "/api/processes/ws-flood/stop")).status).toBe(200)
    expect((await daemon.request("GET", "/api/status")).status).toBe(200)
  }, 120_000)
})
