/**
 * `pmfx-runtime` stops each app with its `kill_signal` (docs/containers.md, "Signals and
 * stopping"): the container's SIGTERM reaches an app that asked for SIGINT as SIGINT.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { startRuntime } from "./helpers"

const recorder = path.resolve(__dirname, "../fixtures/record-signal.js")

const lines = (file: string): ReadonlyArray<string> =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : []

describe("pmfx-runtime and kill_signal", () => {
  let sandbox: Sandbox
  afterEach(() => sandbox.cleanup())

  const app = (name: string, extra: object = {}) => ({
    name,
    script: recorder,
    env: {
      SIGNAL_FILE: path.join(sandbox.dir, `${name}.signals`),
      READY_FILE: path.join(sandbox.dir, `${name}.ready`)
    },
    kill_timeout: "10s",
    ...extra
  })

  it("SIGTERM to the runtime stops each app of a file with its kill_signal (SIGTERM by default), then exits 0", async () => {
    sandbox = makeSandbox()
    const file = sandbox.write(
      "pmfx.json",
      JSON.stringify({ apps: [app("interrupted", { kill_signal: "SIGINT" }), app("plain")] })
    )
    const runtime = startRuntime(sandbox, [file])
    await waitFor(
      () =>
        lines(path.join(sandbox.dir, "interrupted.ready")).length === 1 &&
        lines(path.join(sandbox.dir, "plain.ready")).length === 1,
      "both apps to start"
    )
    runtime.child.kill("SIGTERM")
    expect(await runtime.exited, runtime.stderr()).toBe(0)
    expect(lines(path.join(sandbox.dir, "interrupted.signals"))).toEqual(["SIGINT"])
    expect(lines(path.join(sandbox.dir, "plain.signals"))).toEqual(["SIGTERM"])
  })

  it("--kill-signal sets it for a script; an unknown signal exits 3 naming the setting", async () => {
    sandbox = makeSandbox()
    const signals = path.join(sandbox.dir, "script.signals")
    const ready = path.join(sandbox.dir, "script.ready")
    fs.writeFileSync(
      path.join(sandbox.dir, "run.js"),
      `process.env.SIGNAL_FILE = ${JSON.stringify(signals)}; process.env.READY_FILE = ${JSON.stringify(ready)}; require(${JSON.stringify(recorder)})\n`
    )
    const runtime = startRuntime(sandbox, ["run.js", "--kill-signal", "hup"])
    await waitFor(() => lines(ready).length === 1, "the script to start")
    runtime.child.kill("SIGTERM")
    expect(await runtime.exited, runtime.stderr()).toBe(0)
    expect(lines(signals)).toEqual(["SIGHUP"])

    const refused = startRuntime(sandbox, ["run.js", "--kill-signal", "SIGFOO"])
    expect(await refused.exited).toBe(3)
    expect(refused.stderr()).toContain("kill_signal")
    expect(refused.stderr()).toContain("SIGFOO")
  })
})
