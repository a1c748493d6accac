import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"

const examples = path.resolve(__dirname, "../../examples")

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("pmfx show", () => {
  it("prints the fully resolved definitions as JSON", () => {
    const result = sandbox.pmfx(["show", "--json", path.join(examples, "ecosystem.toml")])
    expect(result.code).toBe(0)
    const body = JSON.parse(result.stdout)
    const [api, worker, job] = body.apps
    expect(api).toMatchObject({
      name: "api",
      namespace: "default",
      script: path.join(examples, "apps/server.js"),
      cwd: examples,
      instances: 2,
      port: "4000-4001",
      env: { GREETING: "hello" },
      max_memory_restart: 200 * 1024 * 1024,
      kill_timeout: 3000,
      min_uptime: 1000,
      max_restarts: 16,
      autorestart: true,
      health_check: {
        enabled: true,
        check_type: "http",
        url: "http://127.0.0.1:{port}/health",
        interval: 10_000,
        timeout: 2000,
        retries: 3
      }
    })
    expect(api.files).toEqual([
      {
        instance: 0,
        out_file: path.join(sandbox.home, "logs/api-0-out.log"),
        error_file: path.join(sandbox.home, "logs/api-0-err.log"),
        log_file: null,
        pid_file: path.join(sandbox.home, "pids/api-0.pid")
      },
      {
        instance: 1,
        out_file: path.join(sandbox.home, "logs/api-1-out.log"),
        error_file: path.join(sandbox.home, "logs/api-1-err.log"),
        log_file: null,
        pid_file: path.join(sandbox.home, "pids/api-1.pid")
      }
    ])
    expect(worker).toMatchObject({ namespace: "jobs", restart_delay: 1000, env: { TICK_MS: "1000" } })
    expect(job).toMatchObject({ depends_on: [{ name: "api", condition: "online" }], max_restarts: 3, min_uptime: 2000 })
  })

  it("prints the command line node_args make, and a cron_restart with its next run", () => {
    sandbox.write("app.js", "setInterval(() => {}, 1000)\n")
    const file = sandbox.write(
      "eco.json",
      JSON.stringify({
        apps: [
          {
            name: "web",
            script: "./app.js",
            node_args: "--max-old-space-size=512",
            cron_restart: "0 3 * * *",
            autostart: false
          }
        ]
      })
    )
    const result = sandbox.pmfx(["show", file])
    expect(result.code).toBe(0)
    const command = result.stdout.split("\n").find((line) => line.trimStart().startsWith("command "))
    expect(command?.trim().replace(/^command +/, "")).toBe(
      `${process.execPath} --max-old-space-size=512 ${path.join(path.dirname(file), "app.js")}`
    )
    expect(result.stdout).toMatch(/cron_restart +0 3 \* \* \* \(next \d{4}-\d\d-\d\d 03:00:00 [+-]\d\d:\d\d\)/)
    expect(result.stdout).toMatch(/autostart +false \(registered stopped\)/)
  })

  it("merges the env_<name> block chosen with --env", () => {
    const result = sandbox.pmfx([
      "show",
      "--json",
      "--env",
      "production",
      path.join(examples, "pm2/ecosystem.config.js")
    ])
    expect(result.code).toBe(0)
    const web = JSON.parse(result.stdout).apps[0]
    expect(web.env).toEqual({ NODE_ENV: "production", PORT: "5000" })
    expect(web.merge_logs).toBe(true)
    expect(web.files[0].out_file).toBe(path.join(sandbox.home, "logs/web-out.log"))
  })

  it("prints a readable block per app", () => {
    const result = sandbox.pmfx(["show", path.join(examples, "ecosystem.json")])
    expect(result.code).toBe(0)
    for (const text of [
      "api",
      "worker",
      "nightly-job",
      "4000-4001",
      "200M",
      "GREETING=hello",
      path.join(sandbox.home, "logs/api-1-out.log")
    ]) {
      expect(result.stdout).toContain(text)
    }
    expect(result.stdout).not.toMatch(/\u001b\[/)
  })

  it("fails like validate on an invalid file", () => {
    const file = sandbox.write("bad.yaml", "apps:\n  - name: x\n    script: a.js\n    instances: 1.5\n")
    const result = sandbox.pmfx(["show", "--json", file])
    expect(result.code).toBe(3)
    const body = JSON.parse(result.stdout)
    expect(body.error).toMatchObject({ code: "INVALID_CONFIG", details: { field: "apps[0].instances", value: 1.5 } })
  })
})
