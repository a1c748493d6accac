/**
 * `pmfx-runtime` as PID 1 of a new PID namespace, as in a container (docs/containers.md): it reaps
 * an orphaned grandchild, forwards SIGTERM to every app (stopped as the daemon stops them) and exits 0,
 * answers `pmfx list` on its socket, prefixes each app's lines on the matching stream, and exits
 * non-zero naming an app that crash-looped to `errored`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { pidNamespaceProblem, processesWith, type RunningRuntime, startRuntime, statOf, zombiesOf } from "./helpers"

const problem = pidNamespaceProblem()
if (problem !== null) console.log(`skipping the PID 1 tests of pmfx-runtime: ${problem}`)

/** Writes `<name>-<pid>` in the sandbox when `signal` arrives, then exits. */
const signalRecorder = (name: string, signal: string) => `
const fs = require("fs")
process.on(${JSON.stringify(signal)}, () => { fs.writeFileSync(${JSON.stringify(name)} + "-" + process.pid, ${JSON.stringify(signal)}); process.exit(0) })
setInterval(() => {}, 1000)
`

describe.skipIf(problem !== null)("pmfx-runtime as PID 1", () => {
  let sandbox: Sandbox
  let runtime: RunningRuntime | undefined
  afterEach(async () => {
    // Killing PID 1 of a namespace kills every process in it.
    const pid = runtime?.pid()
    if (pid !== undefined && statOf(pid) !== null) process.kill(pid, "SIGKILL")
    if (runtime !== undefined) await runtime.exited
    runtime = undefined
    sandbox.cleanup()
  })

  it("reaps an orphaned grandchild, serves pmfx list, prefixes output, and stops every app on SIGTERM with exit 0", async () => {
    sandbox = makeSandbox()
    const marker = `pmfx-orphan-${process.pid}-${Date.now()}`
    // The middle process exits at once: the grandchild is re-parented to PID 1 and exits 1.5 s later.
    sandbox.write(
      "orphaner.js",
      `require("child_process").spawn(process.execPath, ["-e", ${JSON.stringify(
        `require("child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 1500)", ${JSON.stringify(marker)}], { stdio: "ignore", detached: true }).unref()`
      )}], { stdio: "ignore" })\n${signalRecorder("got-orphaner", "SIGTERM")}`
    )
    sandbox.write(
      "web.js",
      `console.log("out line"); console.error("err line")\n${signalRecorder("got-web", "SIGTERM")}`
    )
    sandbox.write("worker.js", signalRecorder("got-worker", "SIGTERM"))
    sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "orphaner", script: "orphaner.js", kill_timeout: "60s" },
          { name: "web", script: "web.js", kill_timeout: "60s" },
          { name: "worker", script: "worker.js", instances: 2, exec_mode: "fork", kill_timeout: "60s" }
        ]
      })
    )
    runtime = startRuntime(sandbox, ["ecosystem.json"], { pidNamespace: true })
    const current = runtime
    await waitFor(() => current.pid() !== undefined, "the runtime to start")
    const pid1 = current.pid()!

    // The grandchild is seen re-parented to the runtime, then gone: waited on, not left a zombie.
    let orphan: number | undefined
    await waitFor(() => {
      orphan = processesWith(marker).find((pid) => statOf(pid)?.ppid === pid1)
      return orphan !== undefined
    }, "the orphan to be re-parented to PID 1")
    await waitFor(() => statOf(orphan!) === null, "the orphan to be reaped (a zombie keeps its /proc entry)")
    expect(zombiesOf(pid1)).toEqual([])

    const listed = sandbox.pmfx(["list"])
    expect(listed.code, listed.stderr).toBe(0)
    for (const name of ["orphaner", "web", "worker"]) expect(listed.stdout).toContain(name)

    await waitFor(
      () => current.stdout().includes("web/0 | out line\n") && current.stderr().includes("web/0 | err line\n"),
      "web's lines on each stream"
    )
    expect(current.stdout()).not.toContain("err line")
    expect(current.stderr()).not.toContain("out line")

    process.kill(pid1, "SIGTERM")
    // kill_timeout is 60 s: an exit before this deadline means no app had to be SIGKILLed.
    const code = await Promise.race([
      current.exited,
      new Promise((resolve) => setTimeout(() => resolve("still running"), 45_000))
    ])
    expect(code, current.stderr()).toBe(0)
    const got = fs.readdirSync(sandbox.dir).filter((name) => name.startsWith("got-"))
    expect(got.filter((name) => name.startsWith("got-orphaner-"))).toHaveLength(1)
    expect(got.filter((name) => name.startsWith("got-worker-"))).toHaveLength(2)
    const web = got.filter((name) => name.startsWith("got-web-"))
    expect(web).toHaveLength(1)
    expect(fs.readFileSync(path.join(sandbox.dir, web[0]!), "utf8")).toBe("SIGTERM")
    expect(current.stderr()).toContain("SIGTERM: stopping every app")
    expect(current.stderr()).not.toContain("warning")
  })

  it("exits 1 naming the app that crash-looped to errored, and says how --no-auto-exit keeps it running", async () => {
    sandbox = makeSandbox()
    sandbox.write("crasher.js", `console.error("cannot start"); process.exit(3)\n`)
    sandbox.write("steady.js", signalRecorder("got-steady", "SIGTERM"))
    sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "crasher", script: "crasher.js", max_restarts: 2, restart_delay: 100 },
          { name: "steady", script: "steady.js" }
        ]
      })
    )
    runtime = startRuntime(sandbox, ["ecosystem.json"], { pidNamespace: true })
    const code = await runtime.exited
    expect(code, runtime.stderr()).toBe(1)
    expect(runtime.stderr()).toMatch(/crasher \(id 0\) is errored after \d+ restart\(s\), last exit code 3/)
    expect(runtime.stderr()).toContain("--no-auto-exit")
    // The other app was stopped gracefully before the runtime left.
    expect(fs.readdirSync(sandbox.dir).filter((name) => name.startsWith("got-steady-"))).toHaveLength(1)
  })
})
