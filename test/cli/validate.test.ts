import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as path from "node:path"
import packageJson from "../../package.json"
import { makeSandbox, type Sandbox } from "../support/cli"

const examples = path.resolve(__dirname, "../../examples")

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

describe("pmfx basics", () => {
  it("prints its version", () => {
    const result = sandbox.pmfx(["--version"])
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`${packageJson.version}\n`)
  })

  it("lists its commands in --help, without color codes when not on a terminal", () => {
    const result = sandbox.pmfx(["--help"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("validate")
    expect(result.stdout).toContain("show")
    expect(result.stdout).not.toMatch(/\u001b\[/)
  })

  it("prints a bash completion script", () => {
    const result = sandbox.pmfx(["completion", "bash"])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("pmfx")
    expect(result.stdout).toContain("complete")
  })

  it("exits 2 on a missing argument", () => {
    const result = sandbox.pmfx(["validate"])
    expect(result.code).toBe(2)
    expect(result.stderr + result.stdout).toMatch(/file/i)
  })

  it("exits 2 on an unknown command", () => {
    const result = sandbox.pmfx(["frobnicate"])
    expect(result.code).toBe(2)
  })
})

describe("pmfx validate", () => {
  for (const file of ["ecosystem.json", "ecosystem.yaml", "ecosystem.toml", "ecosystem.config.mjs"]) {
    it(`accepts examples/${file}`, () => {
      const result = sandbox.pmfx(["validate", path.join(examples, file)])
      expect(result.code).toBe(0)
      expect(result.stdout).toContain("OK")
      expect(result.stdout).toContain("3 apps")
      for (const name of ["api", "worker", "nightly-job"]) expect(result.stdout).toContain(name)
    })
  }

  it("prints a machine-readable summary with --json", () => {
    const result = sandbox.pmfx(["validate", "--json", path.join(examples, "ecosystem.yaml")])
    expect(result.code).toBe(0)
    const body = JSON.parse(result.stdout)
    expect(body.success).toBe(true)
    expect(body.file).toBe(path.join(examples, "ecosystem.yaml"))
    expect(body.apps.map((a: { name: string }) => a.name)).toEqual(["api", "worker", "nightly-job"])
    expect(body.apps[0]).toMatchObject({
      instances: 2,
      port: "4000-4001",
      script: path.join(examples, "apps/server.js")
    })
    expect(body.warnings).toEqual([])
  })

  it("loads a PM2 ecosystem.config.js unchanged: its PM2 settings honoured, deploy warned", () => {
    const result = sandbox.pmfx([
      "validate",
      "--json",
      "--env",
      "production",
      path.join(examples, "pm2/ecosystem.config.js")
    ])
    expect(result.code).toBe(0)
    const body = JSON.parse(result.stdout)
    expect(body.apps.map((a: { name: string }) => a.name)).toEqual(["web", "ticker"])
    const warnings: Array<string> = body.warnings
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^deploy is ignored/)
  })

  it("reports every problem with its field, value and suggestion, and exits 3 (--strict: unknown keys too)", () => {
    const file = sandbox.write(
      "bad.json",
      JSON.stringify({
        apps: [
          { name: "api", scirpt: "server.js", max_memory_restart: "12X" },
          { name: "all", script: "w.js", port: "5-3", min_uptime: "ten seconds" }
        ]
      })
    )
    const result = sandbox.pmfx(["validate", file])
    expect(result.code).toBe(3)
    expect(result.stdout).toBe("")
    expect(result.stderr).toContain("INVALID_CONFIG")
    for (const field of [
      "apps[0].script",
      "apps[0].max_memory_restart",
      "apps[1].name",
      "apps[1].port",
      "apps[1].min_uptime"
    ]) {
      expect(result.stderr).toContain(field)
    }
    expect(result.stderr).toContain('rename "scirpt" to "script"')

    const json = sandbox.pmfx(["validate", "--json", "--strict", file])
    expect(json.code).toBe(3)
    const body = JSON.parse(json.stdout)
    expect(body.success).toBe(false)
    expect(body.error.code).toBe("INVALID_CONFIG")
    expect(body.error.details.field).toBe("apps[0].scirpt")
    expect(body.error.details.value).toBe("server.js")
    expect(body.error.details.file).toBe(file)
    expect(body.error.details.problems.map((p: { field: string }) => p.field)).toEqual([
      "apps[0].scirpt",
      "apps[0].script",
      "apps[0].max_memory_restart",
      "apps[1].port",
      "apps[1].min_uptime",
      "apps[1].name"
    ])
  })

  it("an unknown key alone is a warning (exit 0, the closest key named); --strict makes it INVALID_CONFIG (exit 3)", () => {
    const file = sandbox.write("typo.json", '{ apps: [ { name: "api", script: "server.js", instance: 2, }, ], }')
    const result = sandbox.pmfx(["validate", file])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain(
      'apps[0].instance: unknown setting "instance" — did you mean "instances"? (ignored)'
    )
    const strict = sandbox.pmfx(["validate", "--strict", "--json", file])
    expect(strict.code).toBe(3)
    expect(JSON.parse(strict.stdout).error.details).toMatchObject({
      field: "apps[0].instance",
      value: 2,
      suggestion: 'did you mean "instances"?'
    })
  })

  it("reports a syntax error with its line as CONFIG_PARSE_ERROR, exit 3", () => {
    const file = sandbox.write("broken.json", '{\n  "apps": [\n    { "script": "a.js" ]\n  ]\n}\n')
    const result = sandbox.pmfx(["validate", "--json", file])
    expect(result.code).toBe(3)
    const body = JSON.parse(result.stdout)
    expect(body.error.code).toBe("CONFIG_PARSE_ERROR")
    expect(body.error.details).toMatchObject({ file, line: 3 })

    const human = sandbox.pmfx(["validate", file])
    expect(human.code).toBe(3)
    expect(human.stderr).toContain(`${file}:3`)
  })

  it("reports a file that does not exist, exit 3", () => {
    const result = sandbox.pmfx(["validate", "--json", "nope.yaml"])
    expect(result.code).toBe(3)
    const body = JSON.parse(result.stdout)
    expect(body.error.code).toBe("CONFIG_PARSE_ERROR")
    expect(body.error.details.file).toBe(path.join(sandbox.dir, "nope.yaml"))
  })

  it("substitutes variables from the caller's environment", () => {
    const file = sandbox.write("env.yaml", 'apps:\n  - name: api\n    script: node\n    instances: "${WORKERS:-2}"\n')
    const withDefault = JSON.parse(sandbox.pmfx(["validate", "--json", file]).stdout)
    expect(withDefault.apps[0].instances).toBe(2)
    const withVariable = JSON.parse(sandbox.pmfx(["validate", "--json", file], { WORKERS: "3" }).stdout)
    expect(withVariable.apps[0].instances).toBe(3)
  })
})
