/** `pmfx status`, and `show` / `validate` given a process name or id instead of a file (docs/architecture.md §10). */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { selectRows } from "../../src/cli/commands/status"
import { classifyTarget } from "../../src/cli/target"
import type { ProcessSummary } from "../../src/domain/ProcessSummary"
import { onTestFinished } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import { createApps } from "./createApp"
import { eventually, fixtures, json, node } from "./helpers"

/**
 * status, show and validate only read: the file's tests read the same apps of one daemon, created
 * by the first test that asks for them (startApps), with the ids a fresh daemon gives (0, 1, 2).
 */
let sandbox: Sandbox
beforeAll(() => {
  sandbox = makeSandbox()
})
afterAll(() => sandbox.cleanup())

const idle = ["-e", "setInterval(() => {}, 1000)"]
const healthScript = path.join(fixtures, "health-exit.sh")

/** `web` (2 instances, namespace `front`) and `checked` (a script health check every second). */
const createTheApps = async () => {
  await createApps(sandbox, {
    apps: [
      { name: "web", script: node, args: idle, instances: 2, namespace: "front", env: { GREETING: "hi" } },
      {
        name: "checked",
        script: node,
        args: idle,
        health_check: { check_type: "script", script: healthScript, interval: 1 }
      }
    ]
  })
  await eventually(() => {
    const rows = json<Array<ProcessSummary>>(sandbox.pmfx(["list", "--json"]))
    expect(rows.map((row) => [row.name, row.status, row.health_status])).toEqual([
      ["web", "online", "none"],
      ["web", "online", "none"],
      ["checked", "online", "healthy"]
    ])
  })
}
let started: Promise<void> | undefined
/** The apps, created once for the file; a test that finds them already running goes on at once. */
const startApps = () => (started ??= createTheApps())

describe("pmfx status", () => {
  it("without an argument, describes the daemon", async () => {
    await startApps()
    const text = sandbox.pmfx(["status"])
    expect(text.code).toBe(0)
    const pid = fs.readFileSync(path.join(sandbox.home, "daemon.pid"), "utf8").trim()
    expect(text.stdout).toMatch(new RegExp(`pid\\s+${pid}`))
    expect(text.stdout).toMatch(new RegExp(`home\\s+${sandbox.home}`))
    expect(text.stdout).toMatch(new RegExp(`socket\\s+${path.join(sandbox.home, "pmfx.sock")}`))
    expect(text.stdout).toMatch(/processes\s+3: 3 online/)
    expect(text.stdout).toMatch(/web\s+off/)
    // Then the process table, as `pm2 status` prints it.
    const table = text.stdout.split("\n\n")[1]!.split("\n")
    expect(table[0]).toMatch(/^ID\s+Name\s+Namespace\s+Status/)
    expect(table.slice(1).filter((line) => /\sonline\s/.test(line))).toHaveLength(3)

    const body = json<{ pid: number; home: string; processes: { total: number; by_status: Record<string, number> } }>(
      sandbox.pmfx(["status", "--json"])
    )
    expect(body).toMatchObject({
      pid: Number(pid),
      home: sandbox.home,
      processes: { total: 3, by_status: { online: 3, stopped: 0 } }
    })
  })

  it("with a name, an id or a namespace, prints those rows with their health", async () => {
    await startApps()
    const web = sandbox.pmfx(["status", "web"])
    expect(web.code).toBe(0)
    expect(web.stdout.split("\n").filter((line) => /^\d+\s+web\s+front\s+online/.test(line))).toHaveLength(2)
    expect(web.stdout).not.toContain("checked")

    const checked = sandbox.pmfx(["status", "checked"])
    expect(checked.stdout).toMatch(/checked\s+default\s+online/)
    expect(checked.stdout).toMatch(/health\n\s+checked\[0\]\s+script: healthy, checked \d+s ago in \d+ ms/)

    const byId = json<Array<Record<string, unknown>>>(sandbox.pmfx(["status", "2", "--json"]))
    expect(byId).toEqual([
      expect.objectContaining({
        id: 2,
        name: "checked",
        status: "online",
        health_status: "healthy",
        health_check: expect.objectContaining({ enabled: true, check_type: "script", status: "healthy" })
      })
    ])
    expect(byId[0]).not.toHaveProperty("config")

    const byNamespace = json<Array<{ id: number }>>(sandbox.pmfx(["status", "front", "--json"]))
    expect(byNamespace.map((row) => row.id)).toEqual([0, 1])
    // A folder named like the app does not hide it.
    fs.mkdirSync(path.join(sandbox.dir, "web"))
    expect(json<Array<{ id: number }>>(sandbox.pmfx(["status", "web", "--json"])).map((row) => row.id)).toEqual([0, 1])
  })

  it("with an unknown name, exits 4 with the daemon's suggestion", async () => {
    await startApps()
    const result = sandbox.pmfx(["status", "wbe"])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain("PROCESS_NOT_FOUND")
    expect(result.stderr).toContain('did you mean "web"?')
    const asJson = sandbox.pmfx(["status", "99", "--json"])
    expect(asJson.code).toBe(4)
    expect(JSON.parse(asJson.stdout).error.code).toBe("PROCESS_NOT_FOUND")
  })

  it("with a file, says which of its apps run", async () => {
    await startApps()
    const file = sandbox.write(
      "apps.json",
      JSON.stringify({
        apps: [
          { name: "web", script: node, instances: 2, namespace: "front" },
          { name: "later", script: node }
        ]
      })
    )
    const text = sandbox.pmfx(["status", "apps.json"])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`${file}: 2 apps`)
    expect(text.stdout).toMatch(/web\s+running\s+2\/2 online\s+ids 0, 1\s+namespace front/)
    expect(text.stdout).toMatch(/later\s+not started/)

    const body = json<{
      apps: Array<{ name: string; state: string; running: boolean; processes: Array<{ id: number }> }>
    }>(sandbox.pmfx(["status", file, "--json"]))
    expect(body.apps.map((app) => [app.name, app.state, app.running, app.processes.map((row) => row.id)])).toEqual([
      ["web", "running", true, [0, 1]],
      ["later", "not started", false, []]
    ])

    const missing = sandbox.pmfx(["status", "missing.yaml"])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain("CONFIG_PARSE_ERROR")
  })
})

describe("pmfx show <name|id>", () => {
  it("prints what the daemon knows of a process, readably or as JSON", async () => {
    await startApps()
    const text = sandbox.pmfx(["show", "web"])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/^web id 0, instance 0, namespace front/)
    for (const pattern of [
      /status\s+online/,
      /pid\s+\d+/,
      /restarts\s+0/,
      /instances\s+2 \(ids 0, 1\)/,
      /env\s+GREETING=hi/,
      /health\s+no check/
    ]) {
      expect(text.stdout).toMatch(pattern)
    }
    expect(text.stdout).toContain(node)
    expect(text.stdout).toContain(path.join(sandbox.home, "logs/web-0-out.log"))
    expect(text.stdout).toContain(path.join(sandbox.home, "logs/web-0-err.log"))

    const detail = json<Record<string, any>>(sandbox.pmfx(["show", "1", "--json"]))
    expect(detail).toMatchObject({
      id: 1,
      name: "web",
      instance: 1,
      status: "online",
      app_instances: [0, 1],
      config: { script: node, args: idle, instances: 2, env: { GREETING: "hi" } },
      health_check: { enabled: false },
      logs: {
        out_file: path.join(sandbox.home, "logs/web-1-out.log"),
        error_file: path.join(sandbox.home, "logs/web-1-err.log")
      }
    })

    const checked = sandbox.pmfx(["show", "checked"])
    expect(checked.stdout).toMatch(/health\s+script: healthy, checked \d+s ago/)
  })

  it("exits 4 for an unknown process", async () => {
    await startApps()
    const result = sandbox.pmfx(["show", "nope"])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain("PROCESS_NOT_FOUND")
    expect(result.stderr).toContain("suggestion:")
  })
})

describe("pmfx validate <name|id>", () => {
  it("says OK when the daemon holds the definition, and exits 4 when it does not", async () => {
    await startApps()
    const ok = sandbox.pmfx(["validate", "web"])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain("OK web is defined in the daemon (ids 0, 1, namespace front)")
    expect(json<Record<string, unknown>>(sandbox.pmfx(["validate", "2", "--json"]))).toMatchObject({
      success: true,
      name: "checked",
      app_instances: [2]
    })

    const missing = sandbox.pmfx(["validate", "nope"])
    expect(missing.code).toBe(4)
    expect(missing.stderr).toContain("PROCESS_NOT_FOUND")
    const missingJson = sandbox.pmfx(["validate", "nope", "--json"])
    expect(missingJson.code).toBe(4)
    expect(JSON.parse(missingJson.stdout).error.code).toBe("PROCESS_NOT_FOUND")
  })

  it("still checks a file, and treats a file name that does not exist as a missing file (exit 3)", () => {
    // A home of its own, where no daemon ever ran.
    const sandbox = makeSandbox()
    onTestFinished(() => sandbox.cleanup())
    const file = sandbox.write("one.yaml", `apps:\n  - name: one\n    script: ${node}\n`)
    const result = sandbox.pmfx(["validate", "one.yaml"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(`OK ${file}: 1 app`)
    expect(sandbox.pmfx(["validate", "two.yaml"]).code).toBe(3)
    // Checking a file needs no daemon.
    expect(fs.existsSync(path.join(sandbox.home, "pmfx.sock"))).toBe(false)
  })
})

describe("a file or a process", () => {
  it("is a file when it names a path or has a configuration extension, else a process", () => {
    expect(classifyTarget("ecosystem.json", "/srv")).toEqual({ _tag: "File", file: "/srv/ecosystem.json" })
    expect(classifyTarget("conf/apps.YAML", "/srv")).toEqual({ _tag: "File", file: "/srv/conf/apps.YAML" })
    expect(classifyTarget("./Procfile", "/srv")).toEqual({ _tag: "File", file: "/srv/Procfile" })
    expect(classifyTarget("/etc/pmfx/apps.toml", "/srv")).toEqual({ _tag: "File", file: "/etc/pmfx/apps.toml" })
    for (const id of ["api", "3", "all", "api.v2", "front"])
      expect(classifyTarget(id, "/srv")).toEqual({ _tag: "Process", id })
  })

  it("selects rows the way the daemon resolves a target: id, all, name, namespace", () => {
    const row = (id: number, name: string, namespace: string) => ({ id, name, namespace }) as ProcessSummary
    const rows = [row(0, "web", "front"), row(1, "web", "front"), row(2, "front", "default"), row(3, "job", "back")]
    expect(selectRows(rows, "1").map((r) => r.id)).toEqual([1])
    expect(selectRows(rows, "all").map((r) => r.id)).toEqual([0, 1, 2, 3])
    // An app name wins over a namespace of the same name.
    expect(selectRows(rows, "front").map((r) => r.id)).toEqual([2])
    expect(selectRows(rows, "back").map((r) => r.id)).toEqual([3])
    expect(selectRows(rows, "nope")).toEqual([])
  })
})
