/**
 * The daemon lock against pids that are not a live pmfx daemon (docs/decisions.md, "The daemon
 * lock knows its owner"): a stranger that has the recorded pid, a zombie, a daemon killed an
 * instant ago. Each time the next command starts a daemon and succeeds.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { eventually, idleCommand, isAlive, json, ok } from "./helpers"

let sandbox: Sandbox
const started: Array<ChildProcess> = []
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => {
  sandbox.cleanup()
  for (const child of started.splice(0)) child.kill("SIGKILL")
})

/** A process of the test's own: `sleep`, or a shell that leaves a zombie child and prints its pid. */
const spawnOwn = (command: string, args: ReadonlyArray<string>) => {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "ignore"] })
  started.push(child)
  return child
}

const startTimeOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])
}

const stateOf = (pid: number) => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
}

const daemonPid = () => Number(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8").trim())

/** Writes a lock as a daemon would have: the pid file, and the owner record when given. */
const writeLock = (pid: number, recordedStartTime?: number) => {
  fs.mkdirSync(sandbox.home, { recursive: true, mode: 0o700 })
  fs.writeFileSync(path.join(sandbox.home, "daemon.pid"), `${pid}\n`)
  if (recordedStartTime !== undefined)
    fs.writeFileSync(path.join(sandbox.home, "daemon.owner"), `${pid} ${recordedStartTime}\n`)
  // Not a lock taken a moment ago by a daemon still starting.
  const old = new Date(Date.now() - 60_000)
  fs.utimesSync(path.join(sandbox.home, "daemon.pid"), old, old)
}

describe("the daemon lock", () => {
  it("records the daemon's pid and start time, and removes both when the daemon stops", () => {
    ok(sandbox, ["list"])
    const pid = daemonPid()
    expect(fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8")).toBe(`${pid}\n`)
    expect(fs.readFileSync(path.join(sandbox.home, "daemon.owner"), "utf8")).toBe(`${pid} ${startTimeOf(pid)}\n`)
    expect((fs.statSync(path.join(sandbox.home, "daemon.owner")).mode & 0o777).toString(8)).toBe("600")
    ok(sandbox, ["kill"])
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
    expect(fs.existsSync(path.join(sandbox.home, "daemon.owner"))).toBe(false)
  })

  it("a pid file naming an unrelated live process does not block commands, nor is that process touched", () => {
    const stranger = spawnOwn("sleep", ["60"])
    writeLock(stranger.pid!)
    const listed = sandbox.pmfx(["list", "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(json(listed)).toEqual([])
    expect(daemonPid()).not.toBe(stranger.pid)
    // `pmfx kill` stops the real daemon, and takes the stranger for nothing.
    ok(sandbox, ["kill"])
    expect(isAlive(stranger.pid!)).toBe(true)
  })

  it("a reused pid whose start time differs from the recorded one is no daemon, even with a record", () => {
    const stranger = spawnOwn("sleep", ["60"])
    writeLock(stranger.pid!, startTimeOf(stranger.pid!) - 1)
    const killed = sandbox.pmfx(["kill"])
    expect(killed.code, killed.stderr).toBe(0)
    expect(killed.stdout).toContain("no daemon is running")
    expect(ok(sandbox, ["list"]).code).toBe(0)
    expect(daemonPid()).not.toBe(stranger.pid)
    expect(isAlive(stranger.pid!)).toBe(true)
  })

  it("a zombie with the recorded pid and start time is no daemon", async () => {
    // The shell forks a short `sleep`, prints its pid, then becomes a long `sleep`, which never
    // reaps it (the child must outlive the exec: a shell reaps a child that exits before).
    const parent = spawnOwn("sh", ["-c", "sleep 0.3 & echo $!; exec sleep 60"])
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout!.once("data", (data: Buffer) => resolve(Number(data.toString().trim())))
    )
    await eventually(() => expect(stateOf(zombie)).toBe("Z"))
    writeLock(zombie, startTimeOf(zombie))
    const listed = sandbox.pmfx(["list", "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(daemonPid()).not.toBe(zombie)
  })

  it("while a daemon is still stopping its apps after SIGTERM, the next command waits for it and starts a new one", async () => {
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          {
            name: "stubborn",
            script: process.execPath,
            args: ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"],
            kill_timeout: 3000
          }
        ]
      })
    )
    ok(sandbox, ["start", file])
    const before = daemonPid()
    process.kill(before, "SIGTERM")
    // A signal is handled on the daemon's event loop: on a loaded machine a command sent at once
    // could still be answered as before it, by a daemon not yet stopping. Once its log says so,
    // the old daemon holds its lock for up to 3 s more (the app ignores SIGTERM); the CLI's
    // daemon leaves at once, and the CLI starts another until one takes over.
    await eventually(() =>
      expect(fs.readFileSync(path.join(sandbox.home, "daemon.log"), "utf8")).toContain("SIGTERM: shutting down")
    )
    const listed = sandbox.pmfx(["list", "--json"])
    expect(listed.code, listed.stderr).toBe(0)
    expect(json(listed).map((row) => row.name)).toEqual(["stubborn"])
    expect(daemonPid()).not.toBe(before)
    expect(isAlive(before)).toBe(false)
  })

  it("right after the daemon is killed with SIGKILL, the next command starts a new one and succeeds", () => {
    ok(sandbox, ["start", idleCommand, "--name", "idle"])
    for (let round = 0; round < 3; round++) {
      const before = daemonPid()
      process.kill(before, "SIGKILL")
      const listed = sandbox.pmfx(["list", "--json"])
      expect(listed.code, listed.stderr).toBe(0)
      expect(json(listed).map((row) => row.name)).toEqual(["idle"])
      expect(daemonPid()).not.toBe(before)
    }
  })
})
