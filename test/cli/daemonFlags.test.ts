/**
 * `pmfx daemon --web --host --port --api-key --read-only-api-key --config` (docs/architecture.md §10): the
 * foreground daemon opens its TCP listener at start (the command line winning over the settings
 * state.json remembers), starts an ecosystem file's apps once the saved ones are back, and refuses
 * bad options (exit 2) and bad files (exit 3) before it starts anything.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, PMFX_BIN, processesOfHome, type Sandbox } from "../support/cli"
import { eventually, isAlive, json, list, node, ok } from "./helpers"
import { eventuallyAsync, freePort, httpGet } from "./tcp"

const KEY = "daemon-key-6e0b8d41c2"
const OLD_KEY = "older-key-19fa72c5e3"

let sandbox: Sandbox
const children: Array<ChildProcess> = []
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  sandbox.cleanup()
})

interface Foreground {
  readonly child: ChildProcess
  /** Everything it printed so far (stdout and stderr). */
  readonly output: () => string
  readonly exited: Promise<number | null>
}

/** `pmfx daemon ...` in the foreground, as systemd runs it, in the sandbox's home. */
const foreground = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}): Foreground => {
  const child = spawn(process.execPath, [PMFX_BIN, "daemon", ...args], {
    cwd: sandbox.dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home, ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  children.push(child)
  let output = ""
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  return { child, output: () => output, exited }
}

/** SIGTERM, as `systemctl stop` sends it: the daemon stops its apps and exits 0. */
const stop = async (daemon: Foreground) => {
  daemon.child.kill("SIGTERM")
  expect(await daemon.exited).toBe(0)
  expect(processesOfHome(sandbox.home)).toEqual([])
}

const bearer = (key: string) => ({ authorization: `Bearer ${key}` })

const idleApp = (name: string) => ({ name, script: node, args: ["-e", "setInterval(() => {}, 1000)"] })

describe("pmfx daemon --web", () => {
  it("serves the API over TCP with the key from --api-key, and ends with exit 0 on SIGTERM", async () => {
    const port = await freePort()
    const daemon = foreground(["--web", "--port", String(port), "--api-key", KEY])
    const status = await eventuallyAsync(async () => {
      const reply = await httpGet(port, "/api/status", bearer(KEY))
      expect(reply.status).toBe(200)
      return reply.body as { pid: number; web: unknown }
    })
    expect(status.pid).toBe(daemon.child.pid)
    expect(status.web).toEqual({ host: "localhost", port, auth: true })
    expect((await httpGet(port, "/api/status")).status).toBe(401)
    expect((await httpGet(port, "/api/status", bearer(OLD_KEY))).status).toBe(401)
    await eventually(() => expect(daemon.output()).toContain("ready on"))
    // The CLI on this machine reaches the same daemon over its socket (and starts no other).
    expect(json<{ pid: number }>(ok(sandbox, ["status", "--json"])).pid).toBe(daemon.child.pid)
    await stop(daemon)
    expect(daemon.output()).not.toContain(KEY)
  })

  it("takes the key from PMFX_API_KEY, and its settings win over the listener state.json remembers", async () => {
    // A listener saved by `pmfx web` on another port, with another key.
    const [savedPort, port] = [await freePort(), await freePort()]
    ok(sandbox, ["web", "--port", String(savedPort), "--api-key", OLD_KEY])
    ok(sandbox, ["kill"])

    const daemon = foreground(["--web", `--port=${port}`], { PMFX_API_KEY: KEY })
    await eventuallyAsync(async () => expect((await httpGet(port, "/api/status", bearer(KEY))).status).toBe(200))
    expect((await httpGet(port, "/api/status", bearer(OLD_KEY))).status).toBe(401)
    await expect(httpGet(savedPort, "/api/status", bearer(OLD_KEY))).rejects.toThrow(/ECONNREFUSED/)
    expect(daemon.output()).not.toContain("warning: the web listener has no API key")
    await stop(daemon)

    // The command line's listener is the one remembered for the next daemon.
    const state = JSON.parse(fs.readFileSync(path.join(sandbox.home, "state.json"), "utf8")) as {
      web?: { port: number }
    }
    expect(state.web?.port).toBe(port)
  })

  it("warns when the listener has no key, and refuses a non-loopback host without one (exit 2)", async () => {
    const port = await freePort()
    const daemon = foreground(["--web", "--port", String(port)])
    await eventuallyAsync(async () => expect((await httpGet(port, "/api/status")).status).toBe(200))
    expect(daemon.output()).toContain("warning: the web listener has no API key")
    await stop(daemon)

    const insecure = sandbox.pmfx(["daemon", "--web", "--host", "0.0.0.0", "--port", String(port)])
    expect(insecure.code).toBe(2)
    expect(insecure.stderr).toContain("refusing to listen on 0.0.0.0 without an API key")
  })
})

describe("pmfx daemon --config", () => {
  it("starts the file's apps after restoring the saved ones, and leaves those it holds alone on the next start", async () => {
    const file = sandbox.write("ecosystem.json", JSON.stringify({ apps: [idleApp("alpha"), idleApp("beta")] }))
    const first = foreground(["--config", file])
    // Only then the CLI: run earlier, it would start a daemon of its own to race this one.
    await eventually(() => expect(first.output()).toContain("ready on"))
    const rows = await eventually(() => {
      const current = list(sandbox)
      expect(current.map((row) => [row.id, row.name, row.status])).toEqual([
        [0, "alpha", "online"],
        [1, "beta", "online"]
      ])
      return current
    })
    // What the user asks meanwhile is what the next start keeps.
    ok(sandbox, ["stop", "beta"])
    await stop(first)
    for (const row of rows) expect(isAlive(row.pid!)).toBe(false)

    const second = foreground(["--config", file])
    await eventually(() => expect(second.output()).toContain("ready on"))
    await eventually(() =>
      expect(list(sandbox).map((row) => [row.id, row.name, row.status])).toEqual([
        [0, "alpha", "online"],
        [1, "beta", "stopped"]
      ])
    )
    await eventually(() => expect(second.output()).toContain("alpha, beta already present, left as they are"))
    await stop(second)
  })
})

describe("pmfx daemon: refusals before anything starts", () => {
  const nothingStarted = () => {
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
    expect(processesOfHome(sandbox.home)).toEqual([])
  }

  it("exits 2 on a bad option, naming it", () => {
    const cases: Array<[ReadonlyArray<string>, string]> = [
      [["--bogus"], "unknown option --bogus"],
      [["extra"], 'unexpected argument "extra"'],
      [["--port", "9615"], "--port configures the web listener: add --web"],
      [["--web", "--port", "0"], "--port must be a whole number from 1 to 65535"],
      [["--web", "--port", "http"], "--port must be a whole number from 1 to 65535"],
      [["--config"], "--config needs a value"],
      [["--web", "--web"], "--web is given twice"]
    ]
    for (const [args, message] of cases) {
      const result = sandbox.pmfx(["daemon", ...args])
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stderr).toContain(message)
      expect(result.stderr).toContain("usage: pmfx daemon")
    }
    nothingStarted()
  })

  it("exits 3 on a bad or missing ecosystem file, printing its problems", () => {
    const bad = sandbox.write("bad.json", JSON.stringify({ apps: [{ name: "x", script: "x.js", instances: "lots" }] }))
    const result = sandbox.pmfx(["daemon", "--web", "--port", "9", "--config", bad])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("INVALID_CONFIG")
    expect(result.stderr).toContain("apps[0].instances")
    const missing = sandbox.pmfx(["daemon", "--config", path.join(sandbox.dir, "nowhere.json")])
    expect(missing.code).toBe(3)
    nothingStarted()
  })
})
