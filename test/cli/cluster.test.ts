/** Cluster mode from the CLI: PM2's `-i` rule, and what `pmfx daemon restart` does with a cluster app. */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { randomPortBase } from "../support/ports"
import { allOnline, fixtures, isAlive, list, ok } from "./helpers"

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const server = path.join(fixtures, "cluster-server.js")

const parentOf = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
}

/** The command line of a process's parent. */
const parentCommand = (pid: number): string => fs.readFileSync(`/proc/${parentOf(pid)}/cmdline`, "utf8")

/** One GET on a new connection. */
const get = (port: number) =>
  new Promise<string>((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: "/", agent: false }, (response) => {
      let body = ""
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resolve(body))
    })
    request.on("error", reject)
  })

describe("cluster mode from the CLI", () => {
  it("-i with a .js script runs cluster workers on the one port; with a port range or --exec-mode fork, separate processes", async () => {
    const port = randomPortBase(10)
    ok(sandbox, ["start", server, "--name", "web", "-i", "2", "--port", String(port)])
    ok(sandbox, ["start", server, "--name", "ranged", "-i", "2", "--port", `${port + 2}-${port + 3}`])
    ok(sandbox, [
      "start",
      server,
      "--name",
      "forked",
      "-i",
      "2",
      "--exec-mode",
      "fork",
      "--port",
      `${port + 4}-${port + 5}`
    ])
    const rows = await allOnline(sandbox, 6)
    const byName = (name: string) => rows.filter((row) => row.name === name)
    for (const row of byName("web")) {
      expect(row.port).toBe(String(port))
      expect(parentCommand(row.pid!)).toContain("pmfx cluster primary web")
    }
    for (const row of [...byName("ranged"), ...byName("forked")])
      expect(parentCommand(row.pid!)).not.toContain("pmfx cluster primary")
    expect(byName("ranged").map((row) => row.port)).toEqual([String(port + 2), String(port + 3)])
    expect(ok(sandbox, ["show", "web"]).stdout).toContain("cluster mode: workers of one Node cluster primary")
    expect(ok(sandbox, ["show", "forked"]).stdout).not.toContain("cluster mode")
  })

  it("a SIGKILLed daemon leaves the cluster serving; the next daemon replaces it (nothing runs twice)", async () => {
    const port = randomPortBase(10)
    ok(sandbox, ["start", server, "--name", "web", "-i", "2", "--port", String(port)])
    const before = await allOnline(sandbox, 2)
    const primary = parentOf(before[0]!.pid!)
    process.kill(Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8")), "SIGKILL")
    // No daemon: the primary and its workers keep answering.
    for (let i = 0; i < 4; i++) expect(JSON.parse(await get(port)).pid).toBeOneOf(before.map((row) => row.pid))
    expect(isAlive(primary)).toBe(true)
    // The next daemon stops that cluster and starts the app again.
    const after = await allOnline(sandbox, 2)
    for (const row of after) expect(before.some((old) => old.pid === row.pid)).toBe(false)
    for (const pid of [primary, ...before.map((row) => row.pid!)]) expect(isAlive(pid)).toBe(false)
    expect(JSON.parse(await get(port)).pid).toBeOneOf(after.map((row) => row.pid))
  })

  it("a cluster app under `pmfx daemon restart` is started again (its primary's channel died with the old daemon); nothing runs twice", async () => {
    const port = randomPortBase(10)
    ok(sandbox, ["start", server, "--name", "web", "-i", "2", "--port", String(port)])
    ok(sandbox, ["start", path.join(fixtures, "counter.js"), "--name", "counter"])
    const before = await allOnline(sandbox, 3)
    const restarted = ok(sandbox, ["daemon", "restart"])
    expect(restarted.stdout).toContain(
      "3 processes running, 1 adopted without a restart, 2 started again (cluster mode)"
    )
    const after = await allOnline(sandbox, 3)
    const web = after.filter((row) => row.name === "web")
    for (const row of web) {
      expect(before.some((old) => old.pid === row.pid)).toBe(false)
      expect(parentCommand(row.pid!)).toContain("pmfx cluster primary web")
    }
    expect(after.find((row) => row.name === "counter")!.pid).toBe(before.find((row) => row.name === "counter")!.pid)
    for (const row of before.filter((row) => row.name === "web")) expect(isAlive(row.pid!)).toBe(false)
    expect(list(sandbox)).toHaveLength(3)
  })
})
