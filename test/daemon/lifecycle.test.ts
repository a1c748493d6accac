import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { isAlive, makeTestDaemon, processesWith, type TestDaemon, waitFor } from "../support/daemon"
import { daemonCommand } from "../support/daemonCommand"

let daemon: TestDaemon
beforeEach(() => {
  daemon = makeTestDaemon()
})
afterEach(async () => {
  await daemon.cleanup()
})

/** An app whose processes can be counted in /proc by a unique marker in their command line. */
const markedApp = (name: string, instances = 1) => {
  const marker = `pmfx-test-${name}-${Math.random().toString(36).slice(2)}`
  return {
    marker,
    body: { name, script: process.execPath, args: ["-e", "setInterval(() => {}, 1000)", marker], instances }
  }
}

const mode = (file: string) => (fs.statSync(file).mode & 0o777).toString(8)

describe("the daemon", () => {
  it("keeps its socket and state private, and refuses a second daemon on the same home", async () => {
    await daemon.start()
    const app = markedApp("solo")
    expect((await daemon.call("POST", "/api/processes", app.body)).status).toBe(201)
    expect(mode(daemon.socket)).toBe("600")
    await waitFor(() => fs.existsSync(path.join(daemon.home, "state.json")), "state.json")
    expect(mode(path.join(daemon.home, "state.json"))).toBe("600")
    const [node, ...args] = daemonCommand()
    const second = spawnSync(node, args, {
      env: { PMFX_HOME: daemon.home, PATH: process.env.PATH },
      encoding: "utf8",
      timeout: 20_000
    })
    expect(second.status).not.toBe(0)
    expect(second.stderr).toContain(`another daemon (pid ${daemon.pid()}) already runs`)
    // The first one is unharmed.
    expect((await daemon.call("GET", "/api/processes")).body).toHaveLength(1)
  })

  it("after SIGKILL, the apps keep running and a new daemon adopts them: same pids, exactly one process per row", async () => {
    const first = await daemon.start()
    const web = markedApp("web", 2)
    const worker = markedApp("worker")
    await daemon.call("POST", "/api/processes", web.body)
    await daemon.call("POST", "/api/processes", worker.body)
    await waitFor(
      () => processesWith(web.marker).length === 2 && processesWith(worker.marker).length === 1,
      "apps running"
    )
    const before = (await daemon.call("GET", "/api/processes")).body as Array<{ id: number; pid: number }>
    process.kill(first.pid!, "SIGKILL")
    await waitFor(() => !isAlive(first.pid!), "the daemon to die")
    // Its apps live on, orphaned, in their own process groups.
    expect(processesWith(web.marker)).toHaveLength(2)

    await daemon.start()
    const after = (await daemon.call("GET", "/api/processes")).body as Array<{ id: number; name: string; pid: number }>
    expect(after.map((row) => [row.id, row.name])).toEqual([
      [0, "web"],
      [1, "web"],
      [2, "worker"]
    ])
    await waitFor(
      async () =>
        ((await daemon.call("GET", "/api/processes")).body as Array<{ pid: number | null }>).every(
          (row) => row.pid !== null
        ),
      "rows running"
    )
    expect(processesWith(web.marker)).toHaveLength(2)
    expect(processesWith(worker.marker)).toHaveLength(1)
    expect(after.map((row) => row.pid)).toEqual(before.map((row) => row.pid))
  })

  it("a foreground daemon stops its apps on SIGTERM and exits 0; the next one brings them back", async () => {
    const first = await daemon.start()
    const app = markedApp("svc")
    await daemon.call("POST", "/api/processes", app.body)
    await waitFor(() => processesWith(app.marker).length === 1, "app running")
    const exited = new Promise<number | null>((resolve) => first.once("exit", (code) => resolve(code)))
    process.kill(first.pid!, "SIGTERM")
    expect(await exited).toBe(0)
    expect(processesWith(app.marker)).toHaveLength(0)
    expect(fs.existsSync(daemon.socket)).toBe(false)

    await daemon.start()
    await waitFor(() => processesWith(app.marker).length === 1, "app back")
    const [row] = (await daemon.call("GET", "/api/processes")).body as Array<{ id: number; status: string }>
    expect(row!.id).toBe(0)
  })

  it("answers SERVICE_UNAVAILABLE while it stops its apps", async () => {
    const first = await daemon.start()
    const pidsFile = path.join(daemon.home, "stubborn.json")
    const body = {
      name: "stubborn",
      script: path.resolve(__dirname, "../fixtures/ignore-sigterm.js"),
      env: { PIDS_FILE: pidsFile },
      kill_timeout: "3s"
    }
    await daemon.call("POST", "/api/processes", body)
    // The fixture writes its pids once its SIGTERM handler is in place.
    await waitFor(() => fs.existsSync(pidsFile), "app ignoring SIGTERM")
    const pids = JSON.parse(fs.readFileSync(pidsFile, "utf8")) as { child: number; grandchild: number }
    process.kill(first.pid!, "SIGTERM")
    await waitFor(async () => (await daemon.call("GET", "/api/processes")).status === 503, "503 while stopping", 5_000)
    const reply = await daemon.call("GET", "/api/status")
    expect(reply.body).toMatchObject({
      success: false,
      error: { code: "SERVICE_UNAVAILABLE", details: { reason: "shutting down" } }
    })
    await waitFor(() => !isAlive(first.pid!), "the daemon to exit")
    expect(isAlive(pids.child)).toBe(false)
    expect(isAlive(pids.grandchild)).toBe(false)
  })

  it("kill stops everything; the apps stay stopped across daemon starts until resurrect", async () => {
    const first = await daemon.start()
    const app = markedApp("job")
    await daemon.call("POST", "/api/processes", app.body)
    await waitFor(() => processesWith(app.marker).length === 1, "app running")
    expect((await daemon.call("POST", "/daemon/kill")).status).toBe(200)
    await waitFor(() => !isAlive(first.pid!), "the daemon to exit")
    expect(processesWith(app.marker)).toHaveLength(0)

    await daemon.start()
    const rows = (await daemon.call("GET", "/api/processes")).body as Array<{ status: string }>
    expect(rows.map((row) => row.status)).toEqual(["stopped"])
    expect(processesWith(app.marker)).toHaveLength(0)
    const resurrected = await daemon.call("POST", "/daemon/resurrect")
    expect(resurrected.status).toBe(200)
    await waitFor(() => processesWith(app.marker).length === 1, "app resurrected")
  })

  it("moves a corrupt state.json aside with a clear line in its log and starts empty", async () => {
    fs.mkdirSync(daemon.home, { recursive: true })
    const state = path.join(daemon.home, "state.json")
    fs.writeFileSync(state, '{"version": 1, "engine": {"apps": [', { mode: 0o600 })
    await daemon.start()
    expect((await daemon.call("GET", "/api/processes")).body).toEqual([])
    const moved = fs.readdirSync(daemon.home).filter((f) => f.startsWith("state.json.corrupt-"))
    expect(moved).toHaveLength(1)
    expect(fs.readFileSync(path.join(daemon.home, moved[0]!), "utf8")).toBe('{"version": 1, "engine": {"apps": [')
    await waitFor(() => daemon.output().includes("state.json is not valid JSON"), "the log line")
    expect(daemon.output()).toContain(moved[0]!)
  })

  it("starts over a stale socket file and a stale pid file left by a dead daemon", async () => {
    fs.mkdirSync(daemon.home, { recursive: true })
    fs.writeFileSync(daemon.socket, "")
    fs.writeFileSync(path.join(daemon.home, "daemon.pid"), "999999\n")
    await daemon.start()
    expect((await daemon.call("GET", "/")).body).toMatchObject({ name: "pmfx", status: "running" })
    expect(daemon.pid()).not.toBe(999999)
  })
})
