/**
 * `pmfx-runtime`'s output and log files (docs/containers.md): `--json` gives one object per line
 * on the app's own stream, with every line kept in order; no log file is written unless an app
 * names one; and a runtime whose apps all end by themselves exits 0.
 */
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { startRuntime } from "./helpers"

const LINES = 2_000

describe("pmfx-runtime output", () => {
  let sandbox: Sandbox
  afterEach(() => sandbox.cleanup())

  it("--json: one object per line on the app's stream, none lost, in order; files only for an app that names them; exit 0 when every app ends", async () => {
    sandbox = makeSandbox()
    // Many lines in few big writes: chunks end in the middle of lines.
    sandbox.write(
      "counter.js",
      `let text = ""; for (let i = 0; i < ${LINES}; i++) text += "line " + i + " " + "x".repeat(i % 97) + "\\n"; process.stdout.write(text); console.error("done")\n`
    )
    sandbox.write("named.js", `console.log("kept in a file")\n`)
    sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "counter", script: "counter.js", autorestart: false },
          { name: "named", script: "named.js", autorestart: false, out_file: path.join(sandbox.dir, "named-out.log") }
        ]
      })
    )
    const runtime = startRuntime(sandbox, ["ecosystem.json", "--json"])
    const code = await runtime.exited
    expect(code, runtime.stderr()).toBe(0)

    const out = runtime
      .stdout()
      .split("\n")
      .filter((line) => line !== "")
      .map(
        (line) =>
          JSON.parse(line) as { app: string; instance: number; stream: string; message: string; timestamp: string }
      )
    const counter = out.filter((entry) => entry.app === "counter")
    expect(counter).toHaveLength(LINES)
    counter.forEach((entry, i) => {
      expect(entry).toMatchObject({ instance: 0, stream: "out", message: `line ${i} ${"x".repeat(i % 97)}` })
      expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false)
    })
    expect(out.filter((entry) => entry.app === "named")).toEqual([
      expect.objectContaining({ stream: "out", message: "kept in a file" })
    ])
    const errors = runtime
      .stderr()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { app: string; stream?: string; message: string })
    expect(errors).toContainEqual(expect.objectContaining({ app: "counter", stream: "err", message: "done" }))
    // The runtime's own messages are JSON too, under its own name.
    expect(errors).toContainEqual(
      expect.objectContaining({ app: "pmfx-runtime", message: "every app has stopped: exiting" })
    )

    // The app that names out_file has its file; the other wrote none.
    expect(fs.readFileSync(path.join(sandbox.dir, "named-out.log"), "utf8")).toContain("kept in a file")
    const logs = path.join(sandbox.home, "logs")
    const files = fs.existsSync(logs) ? fs.readdirSync(logs) : []
    expect(files.filter((name) => name.startsWith("counter"))).toEqual([])
  })

  it("--json: every stderr line is JSON, the errored app's report and a file's warnings included", async () => {
    sandbox = makeSandbox()
    sandbox.write("crasher.js", `console.error("cannot start"); process.exit(3)\n`)
    sandbox.write(
      "ecosystem.json",
      JSON.stringify({
        apps: [{ name: "crasher", script: "crasher.js", max_restarts: 1, restart_delay: 100, pmx: true }]
      })
    )
    const runtime = startRuntime(sandbox, ["ecosystem.json", "--json"])
    const code = await runtime.exited
    expect(code, runtime.stderr()).toBe(1)
    const lines = runtime
      .stderr()
      .split("\n")
      .filter((line) => line !== "")
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    const own = lines
      .map((line) => JSON.parse(line) as { app: string; level?: string; message: string })
      .filter((entry) => entry.app === "pmfx-runtime")
    expect(own).toContainEqual(expect.objectContaining({ level: "warn", message: expect.stringContaining("warning") }))
    expect(own).toContainEqual(
      expect.objectContaining({
        level: "error",
        message: expect.stringMatching(/^crasher \(id 0\) is errored after \d+ restart\(s\), last exit code 3$/)
      })
    )
    expect(own).toContainEqual(
      expect.objectContaining({ level: "error", message: expect.stringContaining("--no-auto-exit") })
    )
  })

  it("a Node script with -i runs in cluster mode, as pmfx start and pm2-runtime: every instance serves the one port", async () => {
    sandbox = makeSandbox()
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as net.AddressInfo
        probe.close(() => resolve(port))
      })
    })
    sandbox.write(
      "server.js",
      `require("http").createServer((_, res) => res.end("ok")).listen(${port}, "127.0.0.1", () => console.log("listening"))\n`
    )
    const runtime = startRuntime(sandbox, ["server.js", "--name", "api", "-i", "2"])
    await waitFor(
      () => runtime.stdout().includes("api/0 | listening") && runtime.stdout().includes("api/1 | listening"),
      "both instances to listen"
    )
    expect(runtime.stdout()).not.toContain("EADDRINUSE")
    runtime.child.kill("SIGTERM")
    expect(await runtime.exited, runtime.stderr()).toBe(0)
  })

  it("--log-files writes every app's files, with the text prefix on the console", async () => {
    sandbox = makeSandbox()
    sandbox.write("hello.js", `console.log("hello"); console.error("oops")\n`)
    const runtime = startRuntime(sandbox, ["hello.js", "--name", "greeter", "--no-autorestart", "--log-files"])
    const code = await runtime.exited
    expect(code, runtime.stderr()).toBe(0)
    expect(runtime.stdout()).toContain("greeter/0 | hello\n")
    expect(runtime.stderr()).toContain("greeter/0 | oops\n")
    const logs = fs.readdirSync(path.join(sandbox.home, "logs"))
    expect(logs).toEqual(expect.arrayContaining(["greeter-0-out.log", "greeter-0-err.log"]))
    expect(fs.readFileSync(path.join(sandbox.home, "logs", "greeter-0-out.log"), "utf8")).toContain("hello")
  })
})
