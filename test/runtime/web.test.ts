/**
 * `pmfx-runtime --web` serves the daemon's API over TCP (the same server layers); `pmfx kill`
 * through its socket ends it like a signal does, and SIGQUIT and SIGINT like SIGTERM: every app
 * stopped, exit 0.
 */
import * as fs from "node:fs"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { waitFor } from "../support/daemon"
import { randomPortBase } from "../support/ports"
import { startRuntime } from "./helpers"

describe("pmfx-runtime API", () => {
  let sandbox: Sandbox
  afterEach(() => sandbox.cleanup())

  it("--web answers the API over TCP; pmfx kill stops every app and the runtime exits 0", async () => {
    sandbox = makeSandbox()
    sandbox.write(
      "app.js",
      `process.on("SIGTERM", () => { require("fs").writeFileSync("got-app", "SIGTERM"); process.exit(0) }); setInterval(() => {}, 1000)\n`
    )
    sandbox.write("ecosystem.json", JSON.stringify({ apps: [{ name: "app", script: "app.js" }] }))
    const port = randomPortBase()
    const runtime = startRuntime(sandbox, ["ecosystem.json", "--web", "--port", String(port)])
    let rows: ReadonlyArray<{ name: string; status: string }> = []
    await waitFor(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/processes`, { headers: { host: `127.0.0.1:${port}` } })
      if (response.status !== 200) return false
      rows = (await response.json()) as typeof rows
      return rows.some((row) => row.name === "app" && row.status === "online")
    }, "the app online through the TCP API")
    expect(rows).toHaveLength(1)

    const killed = sandbox.pmfx(["kill"])
    expect(killed.code, killed.stderr).toBe(0)
    // No `pmfx resurrect` hint: nothing is left in the container to resurrect the apps.
    expect(killed.stdout).toContain("stopped 1 process and pmfx-runtime")
    expect(killed.stdout).toContain("the container ends with it")
    expect(killed.stdout).not.toContain("resurrect")
    expect(await runtime.exited).toBe(0)
    expect(fs.readFileSync(`${sandbox.dir}/got-app`, "utf8")).toBe("SIGTERM")
  })

  it("SIGQUIT and SIGINT stop every app gracefully and exit 0, like SIGTERM", async () => {
    sandbox = makeSandbox()
    for (const signal of ["SIGQUIT", "SIGINT"] as const) {
      const marker = `got-${signal}`
      sandbox.write(
        `${signal}.js`,
        `process.on("SIGTERM", () => { require("fs").writeFileSync(${JSON.stringify(marker)}, "SIGTERM"); process.exit(0) }); console.log("up"); setInterval(() => {}, 1000)\n`
      )
      const runtime = startRuntime(sandbox, [`${signal}.js`, "--name", signal.toLowerCase()])
      await waitFor(
        () => runtime.stdout().includes(`${signal.toLowerCase()}/0 | up`),
        `the app of the ${signal} run to be up`
      )
      runtime.child.kill(signal)
      expect(await runtime.exited, runtime.stderr()).toBe(0)
      expect(fs.readFileSync(`${sandbox.dir}/${marker}`, "utf8")).toBe("SIGTERM")
      expect(runtime.stderr()).toContain(`${signal}: stopping every app`)
    }
  })

  it("refuses pmfx daemon restart (it would end the container): BAD_REQUEST, the apps and the runtime keep running", async () => {
    sandbox = makeSandbox()
    sandbox.write("app.js", `console.log("up"); setInterval(() => {}, 1000)\n`)
    const runtime = startRuntime(sandbox, ["app.js", "--name", "app"])
    await waitFor(() => runtime.stdout().includes("app/0 | up"), "the app to be up")
    const before = JSON.parse(sandbox.pmfx(["list", "--json"]).stdout) as ReadonlyArray<{
      name: string
      pid: number | null
    }>
    expect(before).toHaveLength(1)

    const refused = sandbox.pmfx(["daemon", "restart", "--json"])
    expect(refused.code, refused.stderr).toBe(2)
    const error = JSON.parse(refused.stdout) as {
      success: boolean
      error: { code: string; message: string; details: Record<string, string> }
    }
    expect(error.success).toBe(false)
    expect(error.error.code).toBe("BAD_REQUEST")
    expect(error.error.message).toContain("pmfx-runtime cannot be replaced in place")
    expect(error.error.details).toMatchObject({ field: "daemon", reason: "this daemon is pmfx-runtime" })
    expect(error.error.details.suggestion).toContain("restart the container")

    // Nothing changed: the same runtime answers, with the same app process.
    const after = JSON.parse(sandbox.pmfx(["list", "--json"]).stdout) as ReadonlyArray<{
      name: string
      pid: number | null
    }>
    expect(after.map((row) => [row.name, row.pid])).toEqual(before.map((row) => [row.name, row.pid]))
    const killed = sandbox.pmfx(["kill"])
    expect(killed.code, killed.stderr).toBe(0)
    expect(await runtime.exited).toBe(0)
  })
})
