/** `pmfx stop`, `restart`, `reload`, `delete`, `kill` and `resurrect`, through the built binary. */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, processesOfHome, type Sandbox } from "../support/cli"
import {
  allOnline,
  eventually,
  fixtures,
  freePorts,
  hasScript,
  idleCommand,
  isAlive,
  json,
  list,
  node,
  ok,
  pmfxOnTerminal,
  type Row
} from "./helpers"
import { sharedSandbox } from "./sharedSandbox"

let sandbox: Sandbox
/** stop/restart/reload and delete need their own apps, not a fresh daemon: one daemon for the file. */
const shared = sharedSandbox()

const useSharedSandbox = () => {
  beforeEach(() => {
    sandbox = shared()
  })
}

/** kill and resurrect stop the daemon itself: a sandbox per test. */
const useOwnSandbox = () => {
  beforeEach(() => {
    sandbox = makeSandbox()
  })
  afterEach(() => sandbox.cleanup())
}

const healthServer = path.join(fixtures, "health-server.js")

/** An app of `instances` HTTP servers on consecutive free ports. */
const startServers = async (name: string, instances: number) => {
  const base = await freePorts(instances)
  ok(sandbox, [
    "start",
    `${node} ${healthServer}`,
    "--name",
    name,
    "-i",
    String(instances),
    "--port",
    instances === 1 ? String(base) : `${base}-${base + instances - 1}`
  ])
  return base
}

describe("pmfx stop / restart / reload", () => {
  useSharedSandbox()

  it("stops an app's instances and starts them again with restart", async () => {
    await startServers("api", 2)
    const online = await allOnline(sandbox, 2)

    const stopped = sandbox.pmfx(["stop", "api", "--json"])
    expect(stopped.code).toBe(0)
    const rows = json(stopped)
    expect(rows.map((r) => [r.name, r.status, r.pid])).toEqual([
      ["api", "stopped", null],
      ["api", "stopped", null]
    ])
    for (const row of online) expect(isAlive(row.pid!)).toBe(false)
    // Stopping is idempotent.
    expect(sandbox.pmfx(["stop", "api"]).code).toBe(0)

    const restarted = sandbox.pmfx(["restart", "api"])
    expect(restarted.code).toBe(0)
    expect(restarted.stdout).toContain("restarted 2 processes")
    const again = await allOnline(sandbox, 2)
    expect(again.map((r) => r.id)).toEqual(online.map((r) => r.id))
  })

  it("stops one row by id, and everything with all", async () => {
    await startServers("api", 2)
    const online = await allOnline(sandbox, 2)
    const one = json(ok(sandbox, ["stop", String(online[1]!.id), "--json"]))
    expect(one.map((r) => r.id)).toEqual([online[1]!.id])
    expect(list(sandbox).map((r) => r.status)).toEqual(["online", "stopped"])
    ok(sandbox, ["stop", "all"])
    expect(list(sandbox).map((r) => r.status)).toEqual(["stopped", "stopped"])
  })

  it("restarts on a one-time --port, and refuses a bad --port with exit 2", async () => {
    await startServers("api", 1)
    await allOnline(sandbox, 1)
    const override = await freePorts(1)
    const rows = json(ok(sandbox, ["restart", "api", "--port", String(override), "--json"]))
    expect(rows[0]!.port).toBe(String(override))
    const bad = sandbox.pmfx(["restart", "api", "--port", "99999"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--port")
  })

  it("reloads several instances, and says when a single instance was restarted instead", async () => {
    await startServers("multi", 2)
    await startServers("single", 1)
    const before = await allOnline(sandbox, 3)

    const multi = json<{ processes: Array<Row>; restarted_instead: Array<string> }>(
      ok(sandbox, ["reload", "multi", "--json"])
    )
    expect(multi.restarted_instead).toEqual([])
    expect(multi.processes.map((r) => r.id)).toEqual(before.filter((r) => r.name === "multi").map((r) => r.id))
    for (const row of before.filter((r) => r.name === "multi")) expect(isAlive(row.pid!)).toBe(false)

    const single = sandbox.pmfx(["reload", "single"])
    expect(single.code).toBe(0)
    expect(single.stdout).toContain("single has one instance: restarted instead of reloaded")
    const after = await allOnline(sandbox, 3)
    expect(after.every((row) => row.restarts === 1)).toBe(true)
  })

  it("exits 4 for an unknown id or name, with a suggestion", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "worker"])
    for (const command of ["stop", "restart", "reload", "delete"]) {
      const result = sandbox.pmfx([command, "wroker"])
      expect(result.code, command).toBe(4)
      expect(result.stderr).toContain("PROCESS_NOT_FOUND")
      expect(result.stderr).toContain('did you mean "worker"?')
    }
    const asJson = json<{ error: { code: string } }>(sandbox.pmfx(["stop", "999", "--json"]))
    expect(asJson.error.code).toBe("PROCESS_NOT_FOUND")
  })
})

describe("pmfx delete", () => {
  useSharedSandbox()

  it("delete stopped removes only the stopped rows; delete <name> removes an app", async () => {
    for (const name of ["a", "b", "c"]) ok(sandbox, ["start", idleCommand, "--name", name])
    await allOnline(sandbox, 3)
    ok(sandbox, ["stop", "b"])

    const result = json<{ deleted: Array<number> }>(ok(sandbox, ["delete", "stopped", "--json"]))
    expect(result.deleted).toHaveLength(1)
    expect(list(sandbox).map((r) => r.name)).toEqual(["a", "c"])

    const human = sandbox.pmfx(["delete", "a"])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain("deleted 1 process")
    expect(list(sandbox).map((r) => r.name)).toEqual(["c"])
  })

  it("deletes by state with --status, and refuses an unknown state with exit 2", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "a"])
    ok(sandbox, ["start", idleCommand, "--name", "b"])
    await allOnline(sandbox, 2)
    ok(sandbox, ["stop", "b"])
    ok(sandbox, ["delete", "online", "--status"])
    expect(list(sandbox).map((r) => [r.name, r.status])).toEqual([["b", "stopped"]])
    const bad = sandbox.pmfx(["delete", "sleepy", "--status"])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("sleepy")
  })

  it("deletes errored rows", async () => {
    // An app that exits non-zero without autorestart ends errored (a command that does not exist
    // leaves no row at all: a creation whose first spawn fails is not kept).
    ok(sandbox, ["start", node, "--name", "broken", "--no-autorestart", "--", "-e", "process.exit(2)"])
    ok(sandbox, ["start", idleCommand, "--name", "fine"])
    await eventually(() => expect(list(sandbox).find((r) => r.name === "broken")?.status).toBe("errored"))
    ok(sandbox, ["delete", "errored"])
    expect(list(sandbox).map((r) => r.name)).toEqual(["fine"])
  })

  it("delete all --force stops and removes everything; without a terminal it does not ask", async () => {
    await startServers("api", 2)
    const rows = await allOnline(sandbox, 2)
    const result = json<{ deleted: Array<number> }>(ok(sandbox, ["delete", "all", "--force", "--json"]))
    expect(result.deleted.sort()).toEqual(rows.map((r) => r.id).sort())
    expect(list(sandbox)).toEqual([])
    for (const row of rows) expect(isAlive(row.pid!)).toBe(false)

    ok(sandbox, ["start", idleCommand, "--name", "again"])
    const unasked = sandbox.pmfx(["delete", "all"])
    expect(unasked.code).toBe(0)
    expect(list(sandbox)).toEqual([])
  })
})

describe.skipIf(!hasScript)("pmfx delete all on a terminal", () => {
  useSharedSandbox()

  it("asks first: no keeps everything (exit 1), yes deletes", () => {
    ok(sandbox, ["start", idleCommand, "--name", "keep"])
    const no = pmfxOnTerminal(sandbox, ["delete", "all"], "n\n")
    expect(no.output).toContain("Delete all 1 process")
    expect(no.output).toContain("nothing deleted")
    expect(no.code).toBe(1)
    expect(list(sandbox).map((r) => r.name)).toEqual(["keep"])

    const yes = pmfxOnTerminal(sandbox, ["delete", "all"], "y\n")
    expect(yes.code).toBe(0)
    expect(yes.output).toContain("deleted 1 process")
    expect(list(sandbox)).toEqual([])
  })

  it("does not ask with --force", () => {
    ok(sandbox, ["start", idleCommand, "--name", "gone"])
    const forced = pmfxOnTerminal(sandbox, ["delete", "all", "--force"])
    expect(forced.code).toBe(0)
    expect(forced.output).not.toContain("Delete all")
    expect(list(sandbox)).toEqual([])
  })
})

describe("pmfx kill / resurrect", () => {
  useOwnSandbox()

  it("kill stops every app and the daemon; resurrect starts them again", async () => {
    await startServers("api", 2)
    ok(sandbox, ["start", idleCommand, "--name", "idle"])
    const before = await allOnline(sandbox, 3)
    const daemonPid = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8"))
    expect(isAlive(daemonPid)).toBe(true)

    const killed = sandbox.pmfx(["kill", "--json"])
    expect(killed.code, killed.stderr).toBe(0)
    expect(json<{ daemon_pid: number; stopped: Array<number> }>(killed)).toMatchObject({ daemon_pid: daemonPid })
    // When kill returns, nothing of this home runs any more.
    expect(isAlive(daemonPid)).toBe(false)
    for (const row of before) expect(isAlive(row.pid!)).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])

    // A new daemon keeps the apps stopped until resurrect.
    const stopped = list(sandbox)
    expect(stopped.map((r) => [r.name, r.status])).toEqual([
      ["api", "stopped"],
      ["api", "stopped"],
      ["idle", "stopped"]
    ])
    const resurrected = sandbox.pmfx(["resurrect", "--json"])
    expect(resurrected.code, resurrected.stderr).toBe(0)
    expect(
      json(resurrected)
        .map((r) => r.id)
        .sort()
    ).toEqual(before.map((r) => r.id).sort())
    const after = await allOnline(sandbox, 3)
    for (const row of after) expect(before.map((r) => r.pid)).not.toContain(row.pid)
  })

  it("an app started after kill comes back after a daemon restart and a reboot; the apps kill stopped stay stopped until resurrect", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "old"])
    await allOnline(sandbox, 1)
    ok(sandbox, ["kill"])
    // PM2's habit: pm2 kill, then start what you want.
    ok(sandbox, ["start", idleCommand, "--name", "fresh"])
    const fresh = await eventually(() => {
      const row = list(sandbox).find((r) => r.name === "fresh")!
      expect(row.status).toBe("online")
      return row
    })
    // A daemon restart adopts it (same pid); "old" stays stopped.
    ok(sandbox, ["daemon", "restart"])
    expect(list(sandbox).map((r) => [r.name, r.status, r.pid])).toEqual([
      ["old", "stopped", null],
      ["fresh", "online", fresh.pid]
    ])
    // A reboot: the daemon and the app die; the next daemon starts "fresh" again, not "old".
    const daemonPid = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8"))
    process.kill(daemonPid, "SIGKILL")
    process.kill(fresh.pid!, "SIGKILL")
    await eventually(() => expect(isAlive(daemonPid) || isAlive(fresh.pid!)).toBe(false))
    const rebooted = await eventually(() => {
      const rows = list(sandbox)
      expect(rows.map((r) => [r.name, r.status])).toEqual([
        ["old", "stopped"],
        ["fresh", "online"]
      ])
      return rows
    })
    expect(rebooted[1]!.pid).not.toBe(fresh.pid)
    // resurrect brings back what kill stopped.
    ok(sandbox, ["resurrect"])
    await allOnline(sandbox, 2)
  })

  it("kill counts every app it stops: online ones and one waiting out its restart delay; not a stopped one", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "idle"])
    ok(sandbox, ["start", idleCommand, "--name", "parked"])
    ok(sandbox, ["stop", "parked"])
    // Crashes at once and waits a minute before its next try: "restarting" with no pid.
    const config = path.join(sandbox.home, "crash.json")
    fs.writeFileSync(
      config,
      JSON.stringify({ apps: [{ name: "crash", script: node, args: ["-e", "process.exit(1)"], restart_delay: "60s" }] })
    )
    ok(sandbox, ["start", config])
    await eventually(() =>
      expect(list(sandbox).find((r) => r.name === "crash")).toMatchObject({ status: "restarting", pid: null })
    )
    const ids = list(sandbox)
      .filter((r) => r.name !== "parked")
      .map((r) => r.id)
      .sort((a, b) => a - b)

    const killed = sandbox.pmfx(["kill"])
    expect(killed.code, killed.stderr).toBe(0)
    expect(killed.stdout).toContain("stopped 2 processes and the daemon")
    expect(killed.stdout).toContain("`pmfx resurrect` starts them again")
    expect(processesOfHome(sandbox.home)).toEqual([])
    // The JSON shape names the same rows (a new daemon keeps them stopped; kill it again).
    ok(sandbox, ["resurrect"])
    await eventually(() =>
      expect(list(sandbox).find((r) => r.name === "crash")).toMatchObject({ status: "restarting", pid: null })
    )
    const again = json<{ stopped: Array<number> }>(sandbox.pmfx(["kill", "--json"]))
    expect([...again.stopped].sort((a, b) => a - b)).toEqual(ids)
  })

  it("kill of a daemon without apps names no resurrect", () => {
    ok(sandbox, ["ping"])
    const killed = sandbox.pmfx(["kill"])
    expect(killed.code, killed.stderr).toBe(0)
    expect(killed.stdout).toMatch(/^stopped 0 processes and the daemon \(pid \d+\)\n$/)
    expect(processesOfHome(sandbox.home)).toEqual([])
  })

  it("kill without a daemon does nothing and starts none", () => {
    const result = sandbox.pmfx(["kill"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("no daemon is running")
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
  })

  it("the sandbox cleanup leaves nothing behind even when the daemon was killed hard", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "orphan"])
    const [row] = await allOnline(sandbox, 1)
    const daemonPid = Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8"))
    process.kill(daemonPid, "SIGKILL")
    await eventually(() => expect(isAlive(daemonPid)).toBe(false))
    expect(isAlive(row!.pid!)).toBe(true)
    const home = sandbox.home
    sandbox.cleanup()
    expect(isAlive(row!.pid!)).toBe(false)
    expect(processesOfHome(home)).toEqual([])
  })
})
