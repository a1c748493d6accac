/**
 * socketProbe.ts: how every command knows a local daemon answers. Real unix sockets with small
 * servers on them, each answering the way the test names.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach } from "vitest"
import { socketAnswers } from "../../src/cli/socketProbe"

const folders: Array<string> = []
const servers: Array<net.Server> = []
afterEach(() => {
  for (const server of servers.splice(0)) server.close()
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true })
})

const freshSocketPath = (): string => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-probe-"))
  folders.push(folder)
  return path.join(folder, "pmfx.sock")
}

const reply = (status: number, body: string) =>
  `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`

/** A server on a fresh socket that answers each connection's first bytes with `answer` (or never, when undefined). */
const serve = (answer: string | undefined, onClose?: () => void): Promise<string> => {
  const socketPath = freshSocketPath()
  const server = net.createServer((socket) => {
    socket.on("close", () => onClose?.())
    socket.on("error", () => {})
    socket.once("data", () => {
      if (answer !== undefined) socket.end(answer)
    })
  })
  servers.push(server)
  return new Promise((resolve) => server.listen(socketPath, () => resolve(socketPath)))
}

const pmfxInfo = JSON.stringify({ name: "pmfx", version: "0.1.0", status: "running", endpoints: {} })

describe("socketAnswers", () => {
  it.live("is true when GET / is answered 200 with pmfx's service record", () =>
    Effect.gen(function* () {
      const socketPath = yield* Effect.promise(() => serve(reply(200, pmfxInfo)))
      expect(yield* socketAnswers(socketPath)).toBe(true)
    })
  )

  it.live("is false without a socket, and for a file at its path that nobody listens on", () =>
    Effect.gen(function* () {
      const missing = freshSocketPath()
      expect(yield* socketAnswers(missing)).toBe(false)
      // What a daemon killed by SIGKILL leaves: the path exists, the connection is refused.
      const stale = freshSocketPath()
      fs.writeFileSync(stale, "")
      expect(yield* socketAnswers(stale)).toBe(false)
    })
  )

  it.live.each([
    ["another service's record", reply(200, JSON.stringify({ name: "other" }))],
    ["a body that is no JSON", reply(200, "<html>hello</html>")],
    ["an error status with pmfx's record", reply(500, pmfxInfo)],
    ["bytes that are no HTTP", "SSH-2.0-OpenSSH_9.2\r\n"]
  ])("is false for %s", ([, answer]) =>
    Effect.gen(function* () {
      const socketPath = yield* Effect.promise(() => serve(answer))
      expect(yield* socketAnswers(socketPath)).toBe(false)
    })
  )

  it.live("waits on a server that never answers, and closes the connection when the caller gives up", () =>
    Effect.gen(function* () {
      let closed = false
      const socketPath = yield* Effect.promise(() =>
        serve(undefined, () => {
          closed = true
        })
      )
      const answered = yield* socketAnswers(socketPath).pipe(Effect.timeout(Duration.millis(300)), Effect.option)
      expect(answered._tag).toBe("None")
      const deadline = Date.now() + 10_000
      while (!closed && Date.now() < deadline) yield* Effect.sleep(Duration.millis(10))
      expect(closed).toBe(true)
    })
  )
})
