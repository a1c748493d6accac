/**
 * Path settings the daemon cannot use (issue 11, defect 12): `pid_file`, `out_file`, `error_file`,
 * `log_file` and `cwd` each fail that one start with FILE_ERROR naming the setting and the path —
 * a path under /proc (where Node's recursive mkdir spins forever) included — while the daemon keeps
 * answering and the other app keeps running. A log file that cannot be written (/dev/full: every
 * write is ENOSPC) drops and counts lines instead of blocking the app, and /health says so. A
 * state.json that cannot be replaced fails each change with FILE_ERROR instead of a false success
 * (defect 4; the full-disk form is in test/faults/fullDisk.test.ts), and saving resumes by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { makeSandbox } from "../support/cli"
import { type Daemon, eventually, idleApp, isAlive, startDaemon } from "./daemon"
import { structured } from "./shapes"

let daemon: Daemon
let keepPid: number
let scratch: string

beforeAll(async () => {
  daemon = await startDaemon()
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-paths-"))
  expect((await daemon.request("POST", "/api/processes", idleApp("keep"))).status).toBe(201)
  const ready = await daemon.request("GET", "/api/processes/keep/ready?timeout=30s")
  expect(ready.status).toBe(200)
  keepPid = ready.body[0].pid
})
afterAll(async () => {
  await daemon?.stop()
  if (scratch !== undefined) fs.rmSync(scratch, { recursive: true, force: true })
})

const fileError = (field: string, file: string, reason: string) =>
  structured("FILE_ERROR", { field, path: file, reason, suggestion: expect.any(String) })

/** The daemon answers, `keep` runs with the same pid, and no row of `name` was added. */
const nothingElseBroke = async (name: string) => {
  const list = await daemon.request("GET", "/api/processes", undefined, {}, { timeoutMs: 5_000 })
  expect(list.status).toBe(200)
  expect(list.body.map((row: { name: string }) => row.name)).not.toContain(name)
  expect(list.body.find((row: { name: string }) => row.name === "keep")).toMatchObject({
    status: "online",
    pid: keepPid
  })
  expect(isAlive(keepPid)).toBe(true)
}

describe("a path setting that cannot be used", () => {
  const cases: ReadonlyArray<readonly [string, string, string, string]> = [
    // [setting, value, reported path, reason]
    ["pid_file", "/proc/nope/x.pid", "/proc/nope/x.pid", "ENOENT"],
    ["out_file", "/proc/nope/out.log", "/proc/nope/out.log", "ENOENT"],
    ["error_file", "/proc/nope/err.log", "/proc/nope/err.log", "ENOENT"],
    ["log_file", "/proc/nope/all.log", "/proc/nope/all.log", "ENOENT"],
    ["cwd", "/nonexistent/pmfx-cwd", "/nonexistent/pmfx-cwd", "ENOENT"]
  ]
  for (const [setting, value, reported, reason] of cases) {
    it(`${setting} under /proc or missing: FILE_ERROR 422 at once, nothing else affected`, async () => {
      const name = `bad-${setting}`
      // A short timeout: the old daemon never answered this request.
      const reply = await daemon.request(
        "POST",
        "/api/processes",
        idleApp(name, { [setting]: value }),
        {},
        { timeoutMs: 10_000 }
      )
      expect(reply.status).toBe(422)
      expect(reply.body).toEqual(fileError(setting, reported, reason))
      expect(reply.body.error.message).toContain(`${setting} ${reported}`)
      await nothingElseBroke(name)
    })
  }

  it("a folder given as a pid_file or an out_file, and a file given as cwd", async () => {
    const folder = fs.mkdtempSync(path.join(scratch, "dir-"))
    const file = path.join(scratch, "plain-file")
    fs.writeFileSync(file, "x")
    for (const [setting, value, reason] of [
      ["pid_file", folder, "EISDIR"],
      ["out_file", folder, "EISDIR"],
      ["cwd", file, "ENOTDIR"],
      ["error_file", path.join(file, "err.log"), "ENOTDIR"]
    ] as const) {
      const reply = await daemon.request(
        "POST",
        "/api/processes",
        idleApp("bad-kind", { [setting]: value }),
        {},
        { timeoutMs: 10_000 }
      )
      expect(reply.status, setting).toBe(422)
      expect(reply.body, setting).toEqual(fileError(setting, value, reason))
      await nothingElseBroke("bad-kind")
    }
  })

  it("a path that stops working before a start fails that start (the row is errored), not the daemon", async () => {
    const logs = path.join(scratch, "later")
    fs.mkdirSync(logs)
    const created = await daemon.request(
      "POST",
      "/api/processes",
      idleApp("later", { out_file: path.join(logs, "out.log") })
    )
    expect(created.status).toBe(201)
    expect((await daemon.request("POST", "/api/processes/later/stop")).status).toBe(200)
    fs.rmSync(logs, { recursive: true })
    fs.writeFileSync(logs, "now a file")
    const started = await daemon.request("POST", "/api/processes/later/start", undefined, {}, { timeoutMs: 10_000 })
    expect(started.status).toBe(422)
    expect(started.body).toEqual(fileError("out_file", path.join(logs, "out.log"), "ENOTDIR"))
    const row = (await daemon.request("GET", "/api/processes")).body.find((r: { name: string }) => r.name === "later")
    expect(row).toMatchObject({ status: "errored", pid: null })
    expect((await daemon.request("DELETE", "/api/processes/later")).status).toBe(204)
    await nothingElseBroke("later")
  })
})

describe("a log file that cannot be written (/dev/full)", () => {
  it("drops and counts lines, keeps the app and the daemon going, and /health says which file", async () => {
    const chatty = {
      name: "chatty",
      script: process.execPath,
      args: ["-e", "setInterval(() => console.log('x'.repeat(200)), 5)"],
      out_file: "/dev/full"
    }
    expect((await daemon.request("POST", "/api/processes", chatty)).status).toBe(201)
    const first = await eventually(async () => {
      const health = (await daemon.request("GET", "/health")).body
      return health.logs.dropped_lines > 0 &&
        health.logs.failing.some((file: { path: string }) => file.path === "/dev/full")
        ? health
        : undefined
    }, "/health to report the dropped lines")
    expect(first.status).toBe("degraded")
    expect(first.logs.failing.find((file: { path: string }) => file.path === "/dev/full")).toEqual({
      path: "/dev/full",
      reason: expect.stringContaining("ENOSPC"),
      dropped_lines: expect.any(Number)
    })
    // The app is not blocked on its pipe: it keeps writing, and every line is counted.
    await eventually(
      async () => (await daemon.request("GET", "/health")).body.logs.dropped_lines > first.logs.dropped_lines + 50,
      "more dropped lines"
    )
    const online = await eventually(async () => {
      const row = (await daemon.request("GET", "/api/processes/chatty")).body
      return row.status === "online" ? row : undefined
    }, "chatty to be online")
    expect(online.restarts).toBe(0)
    // Stopping it answers at once and the daemon goes back to healthy; the count stays.
    expect((await daemon.request("DELETE", "/api/processes/chatty", undefined, {}, { timeoutMs: 10_000 })).status).toBe(
      204
    )
    const after = (await daemon.request("GET", "/health")).body
    expect(after).toMatchObject({ status: "healthy", state: { saved: true, error: null }, logs: { failing: [] } })
    expect(after.logs.dropped_lines).toBeGreaterThan(first.logs.dropped_lines)
    await nothingElseBroke("chatty")
  })
})

describe("pmfx start --pid-file under /proc", () => {
  it("prints FILE_ERROR with the setting and exits 3; the next command works", () => {
    const sandbox = makeSandbox()
    try {
      const app = sandbox.write("app.js", "setInterval(() => {}, 1000)\n")
      const failed = sandbox.pmfx(["start", app, "--name", "pidless", "--pid-file", "/proc/nope/x.pid"])
      expect(failed.code).toBe(3)
      expect(failed.stderr).toContain("FILE_ERROR pidless: pid_file /proc/nope/x.pid cannot be used")
      expect(failed.stderr).toContain("suggestion:")
      expect(sandbox.pmfx(["start", app, "--name", "fine"]).code).toBe(0)
      const list = sandbox.pmfx(["list", "--json"])
      expect(list.code).toBe(0)
      expect(JSON.parse(list.stdout).map((row: { name: string }) => row.name)).toEqual(["fine"])
      // The refused app left no empty log files behind.
      expect(fs.readdirSync(path.join(sandbox.home, "logs")).filter((file) => file.startsWith("pidless"))).toEqual([])
    } finally {
      sandbox.cleanup()
    }
  })
})

describe("a state.json that cannot be replaced", () => {
  it("fails each change with FILE_ERROR (not a false success), /health says why, and saving resumes by itself", async () => {
    const stateFile = path.join(daemon.home, "state.json")
    fs.rmSync(stateFile, { force: true })
    // A folder where the file goes: every rename over it fails (EISDIR), as root too.
    fs.mkdirSync(path.join(stateFile, "blocker"), { recursive: true })
    try {
      const stopped = await daemon.request("POST", "/api/processes/keep/stop", undefined, {}, { timeoutMs: 10_000 })
      expect(stopped.status).toBe(422)
      expect(stopped.body).toEqual(
        structured("FILE_ERROR", {
          path: stateFile,
          reason: "EISDIR",
          suggestion: expect.stringContaining("saves it again by itself")
        })
      )
      expect(stopped.body.error.message).toContain("state.json could not be saved")
      expect(stopped.body.error.message).toContain("the change took effect")
      const health = (await daemon.request("GET", "/health")).body
      expect(health).toMatchObject({
        status: "degraded",
        state: { saved: false, error: { code: "EISDIR", message: stopped.body.error.message } }
      })
      // The change did happen; a request that fails on its own keeps its own error.
      expect((await daemon.request("GET", "/api/processes/keep")).body).toMatchObject({ status: "stopped" })
      expect((await daemon.request("POST", "/api/processes/nope/stop")).status).toBe(404)
      // No temp file is left behind (one may exist for a moment while a retry is writing it).
      await eventually(
        async () => fs.readdirSync(daemon.home).filter((name) => name.endsWith(".tmp")).length === 0,
        "no temp file left"
      )
    } finally {
      fs.rmSync(stateFile, { recursive: true, force: true })
    }
    await eventually(
      async () => (await daemon.request("GET", "/health")).body.state.saved === true,
      "state.json to be saved again"
    )
    const saved = JSON.parse(fs.readFileSync(stateFile, "utf8"))
    expect(
      saved.engine.apps.find((app: { definition: { name: string } }) => app.definition.name === "keep").rows[0].desired
    ).toBe("stopped")
    const started = await daemon.request("POST", "/api/processes/keep/start")
    expect(started.status).toBe(200)
    const ready = await daemon.request("GET", "/api/processes/keep/ready?timeout=30s")
    expect(ready.status).toBe(200)
    keepPid = ready.body[0].pid
    expect((await daemon.request("GET", "/health")).body).toMatchObject({ state: { saved: true, error: null } })
  })
})
