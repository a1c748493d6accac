/**
 * `POST /daemon/kill` and `POST /daemon/resurrect` (docs/architecture.md §5, docs/api.md): kill stops every app and the
 * daemon; the next daemon on the same home keeps them stopped until resurrect starts them again.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { type Daemon, eventually, idleApp, isAlive, makeHome, startDaemon } from "./daemon"
import { actionResult, structured, summary } from "./shapes"

const home = makeHome()
const started: Array<Daemon> = []
afterAll(async () => {
  // Daemons on the shared home keep it for the next one; it is removed once at the end.
  for (const daemon of started) await daemon.stop({ keepHome: daemon.home === home })
  fs.rmSync(home, { recursive: true, force: true })
})

const start = async () => {
  const daemon = await startDaemon(home)
  started.push(daemon)
  return daemon
}

describe("POST /daemon/kill and /daemon/resurrect", () => {
  it("kill stops the apps and the daemon; the next daemon keeps them stopped; resurrect starts them", async () => {
    const first = await start()
    const created = await first.request("POST", "/api/processes", {
      apps: [idleApp("k-a"), idleApp("k-b", { instances: 2 })]
    })
    expect(created.status).toBe(201)
    for (const name of ["k-a", "k-b"])
      expect((await first.request("GET", `/api/processes/${name}/ready?timeout=30s`)).status).toBe(200)
    const rows = (await first.request("GET", "/api/processes")).body as Array<{ id: number; pid: number }>
    expect(rows).toHaveLength(3)

    const killed = await first.request("POST", "/daemon/kill")
    expect(killed.status).toBe(200)
    expect(killed.body).toEqual({
      success: true,
      message: "stopping 3 processes and the daemon",
      stopped: rows.map((row) => row.id),
      host: "daemon"
    })

    expect(
      await Promise.race([first.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 20_000))])
    ).toBe(0)
    expect(isAlive(first.pid)).toBe(false)
    expect(fs.existsSync(first.socket)).toBe(false)
    await eventually(() => rows.every((row) => !isAlive(row.pid)), "every app process to exit", 30_000)

    const second = await start()
    const kept = await second.request("GET", "/api/processes")
    expect(kept.status).toBe(200)
    expect(kept.body).toEqual(rows.map((row) => expect.objectContaining({ id: row.id, status: "stopped", pid: null })))
    // They stay stopped: nothing starts them behind the user's back.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(((await second.request("GET", "/api/processes?status=stopped")).body as Array<unknown>).length).toBe(3)

    const resurrected = await second.request("POST", "/daemon/resurrect")
    expect(resurrected.status).toBe(200)
    expect(resurrected.body).toEqual(
      actionResult(
        rows.map((row, i) =>
          summary({
            id: row.id,
            name: i === 0 ? "k-a" : "k-b",
            instance: i === 0 ? 0 : i - 1,
            status: expect.stringMatching(/^(starting|online)$/),
            restarts: expect.any(Number)
          })
        )
      )
    )
    for (const name of ["k-a", "k-b"])
      expect((await second.request("GET", `/api/processes/${name}/ready?timeout=30s`)).status).toBe(200)
    const after = (await second.request("GET", "/api/processes")).body as Array<{ id: number; pid: number }>
    for (const row of after) expect(isAlive(row.pid)).toBe(true)

    // Again: a second kill marks them stopped for the next daemon as well.
    const killedAgain = await second.request("POST", "/daemon/kill")
    expect(killedAgain.status).toBe(200)
    await second.exited
    await eventually(() => after.every((row) => !isAlive(row.pid)), "every app process to exit", 30_000)
    const third = await start()
    expect(
      ((await third.request("GET", "/api/processes")).body as Array<{ status: string }>).every(
        (row) => row.status === "stopped"
      )
    ).toBe(true)
    expect((await third.request("POST", "/daemon/resurrect")).status).toBe(200)
    for (const name of ["k-a", "k-b"])
      expect((await third.request("GET", `/api/processes/${name}/ready?timeout=30s`)).status).toBe(200)
  })

  it("answers 503 SERVICE_UNAVAILABLE while kill stops an app that takes its time", async () => {
    const daemon = await startDaemon()
    started.push(daemon)
    const pidsFile = path.join(daemon.home, "pids.json")
    const created = await daemon.request("POST", "/api/processes", {
      name: "stubborn",
      script: path.resolve(__dirname, "../fixtures/ignore-sigterm.js"),
      env: { PIDS_FILE: pidsFile },
      kill_timeout: "3s"
    })
    expect(created.status).toBe(201)
    await eventually(() => fs.existsSync(pidsFile), "the app to ignore SIGTERM")
    const pids = JSON.parse(fs.readFileSync(pidsFile, "utf8")) as { child: number; grandchild: number }
    expect((await daemon.request("POST", "/daemon/kill")).status).toBe(200)
    const unavailable = await eventually(
      async () => {
        const reply = await daemon.request("GET", "/api/processes")
        return reply.status === 503 ? reply : undefined
      },
      "503 while the daemon stops",
      5_000
    )
    expect(unavailable.body).toEqual(structured("SERVICE_UNAVAILABLE", { reason: expect.any(String) }))
    const write = await daemon.request("POST", "/api/processes", idleApp("too-late")).catch(() => undefined)
    if (write !== undefined) expect(write.status).toBe(503)
    expect(await daemon.exited).toBe(0)
    expect(isAlive(pids.child)).toBe(false)
    expect(isAlive(pids.grandchild)).toBe(false)
  })

  it("kill ends the daemon and its apps even when the client hangs up before the answer", async () => {
    // The daemon starts its end once its answer has gone (src/api/afterResponse.ts): a client that
    // closes its connection right after the request must not leave it waiting.
    const daemon = await startDaemon()
    started.push(daemon)
    expect((await daemon.request("POST", "/api/processes", idleApp("hang-up"))).status).toBe(201)
    expect((await daemon.request("GET", "/api/processes/hang-up/ready?timeout=30s")).status).toBe(200)
    const app = ((await daemon.request("GET", "/api/processes")).body as Array<{ pid: number }>)[0]!.pid
    await new Promise<void>((resolve, reject) => {
      const socket = net.createConnection(daemon.socket, () =>
        socket.end("POST /daemon/kill HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n", () => {
          socket.destroy()
          resolve()
        })
      )
      socket.once("error", reject)
    })
    expect(
      await Promise.race([daemon.exited, new Promise((resolve) => setTimeout(() => resolve("still running"), 20_000))])
    ).toBe(0)
    await eventually(() => !isAlive(app), "the app to exit", 30_000)
    expect(fs.existsSync(daemon.socket)).toBe(false)
  })

  it("resurrect with nothing to start answers an empty list", async () => {
    const daemon = started.find((d) => d.home === home && d.child.exitCode === null)!
    const reply = await daemon.request("POST", "/daemon/resurrect")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual(actionResult([]))
  })
})
