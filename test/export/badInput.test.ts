/**
 * `pmfx export` refusing what it cannot do (docs/export.md, "Errors"): each case with its exact
 * code, exit code and fields, and proof that nothing was written and no daemon was needed.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeSandbox, type Sandbox } from "../support/cli"
import { filesUnder } from "./exportFixture"

const examples = path.resolve(__dirname, "../../examples")

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

type Wire = { success: false; error: { code: string; message: string; details: Record<string, any> } }
const wire = (stdout: string): Wire => JSON.parse(stdout) as Wire

/** The command ran in the CLI alone: no daemon was started, so PMFX_HOME was never made. */
const expectNoDaemon = () => expect(fs.existsSync(sandbox.home)).toBe(false)

describe("pmfx export: bad input", () => {
  it("an unknown target is a usage error (exit 2) listing the targets", () => {
    const result = sandbox.pmfx(["export", "nomad", path.join(examples, "ecosystem.json")])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("BAD_REQUEST")
    expect(result.stderr).toContain("kubernetes, compose, systemd")
    const json = sandbox.pmfx(["export", "composer", path.join(examples, "ecosystem.json"), "--json"])
    expect(json.code).toBe(2)
    const error = wire(json.stdout).error
    expect(error.code).toBe("BAD_REQUEST")
    expect(error.details.field).toBe("target")
    expect(error.details.suggestion).toContain("pmfx export compose")
    // The engine's everyday name, which no edit distance finds.
    const docker = sandbox.pmfx(["export", "docker", path.join(examples, "ecosystem.json"), "--json"])
    expect(docker.code).toBe(2)
    expect(wire(docker.stdout).error.details.suggestion).toContain("pmfx export compose")
    expectNoDaemon()
  })

  it("an invalid file is exit 3 with the problems pmfx validate reports", () => {
    const file = sandbox.write(
      "bad.json",
      JSON.stringify({ apps: [{ name: "api", script: "./server.js", instances: -1, max_memory_restart: "lots" }] })
    )
    const exported = sandbox.pmfx(["export", "kubernetes", file, "--json"])
    const validated = sandbox.pmfx(["validate", file, "--json"])
    expect(exported.code).toBe(3)
    expect(validated.code).toBe(3)
    expect(wire(exported.stdout).error.code).toBe("INVALID_CONFIG")
    expect(wire(exported.stdout).error.details.problems).toEqual(wire(validated.stdout).error.details.problems)
    const unreadable = sandbox.pmfx(["export", "compose", sandbox.write("broken.yaml", "apps: [\n")])
    expect(unreadable.code).toBe(3)
    expect(unreadable.stderr).toContain("CONFIG_PARSE_ERROR")
    expectNoDaemon()
  })

  it("an app with no command to run it is refused, naming the app and the field, and nothing is written", () => {
    sandbox.write("project/tool.dat", "not a program\n")
    sandbox.write("project/server.js", "setInterval(() => {}, 1000)\n")
    const file = sandbox.write(
      "project/ecosystem.json",
      JSON.stringify({
        apps: [
          { name: "web", script: "./server.js", port: "auto:5000-5100" },
          { name: "tool", script: "./tool.dat" }
        ]
      })
    )
    const out = path.join(sandbox.dir, "out")
    const result = sandbox.pmfx(["export", "compose", file, "-o", out, "--json"])
    expect(result.code).toBe(3)
    const error = wire(result.stdout).error
    expect(error.code).toBe("INVALID_CONFIG")
    expect(error.details.problems.map((p: { field: string }) => p.field)).toEqual(["apps[0].port", "apps[1].script"])
    expect(error.details.problems[1].message).toContain('cannot export "tool" to compose')
    expect(error.details.problems[1].message).toContain("no command to run it")
    expect(error.details.problems[1].suggestion).toContain("interpreter")
    expect(error.details.problems[0].suggestion).toContain("fixed port")
    expect(fs.existsSync(out)).toBe(false)
    // Text form: the app, the field and what to do, on stderr.
    const text = sandbox.pmfx(["export", "compose", file, "--only", "tool"])
    expect(text.code).toBe(3)
    expect(text.stderr).toContain("apps[1].script")
    expect(text.stderr).toContain("suggestion:")
    expect(text.stdout).toBe("")
  })

  it("cluster mode with several instances has no systemd counterpart (exec_mode)", () => {
    const result = sandbox.pmfx([
      "export",
      "systemd",
      path.join(examples, "pm2/ecosystem.config.js"),
      "--cpus",
      "2",
      "--json"
    ])
    expect(result.code).toBe(3)
    const error = wire(result.stdout).error
    expect(error.details.field).toBe("apps[0].exec_mode")
    expect(error.message).toContain('"web"')
  })

  it("two apps that make the same name on the target are refused (apps[i].name); a name starting with a digit gets a letter first", () => {
    sandbox.write("project/server.js", "setInterval(() => {}, 1000)\n")
    const clash = sandbox.write(
      "project/clash.json",
      JSON.stringify({
        apps: [
          { name: "Web API", script: "./server.js" },
          { name: "web-api", script: "./server.js" }
        ]
      })
    )
    const result = sandbox.pmfx(["export", "kubernetes", clash, "--json"])
    expect(result.code).toBe(3)
    const error = wire(result.stdout).error
    expect(error.details.field).toBe("apps[1].name")
    expect(error.message).toContain('"web-api"')
    expect(error.details.suggestion).toContain("rename")
    const digit = sandbox.write(
      "project/digit.json",
      JSON.stringify({ apps: [{ name: "2fa", script: "./server.js", port: 7000 }] })
    )
    const ok = sandbox.pmfx(["export", "kubernetes", digit])
    expect(ok.code).toBe(0)
    expect(ok.stdout).toContain("name: app-2fa")
  })

  it("-o into a folder that cannot be made is FILE_ERROR (exit 3) and nothing is written", () => {
    const blocker = sandbox.write("a-file", "x")
    const out = path.join(blocker, "out")
    const result = sandbox.pmfx(["export", "kubernetes", path.join(examples, "ecosystem.json"), "-o", out, "--json"])
    expect(result.code).toBe(3)
    const error = wire(result.stdout).error
    expect(error.code).toBe("FILE_ERROR")
    expect(error.details).toMatchObject({ field: "-o", path: out, reason: "ENOTDIR" })
    expect(error.details.suggestion).toContain("-o")
    expect(fs.readFileSync(blocker, "utf8")).toBe("x")
  })

  it("-o under /proc is FILE_ERROR at once (Node's recursive mkdir would spin there forever)", () => {
    const out = "/proc/pmfx-export-test/out"
    const result = sandbox.pmfx(["export", "compose", path.join(examples, "ecosystem.json"), "-o", out, "--json"])
    expect(result.code).toBe(3)
    expect(wire(result.stdout).error).toMatchObject({
      code: "FILE_ERROR",
      details: { field: "-o", path: out, reason: "ENOENT" }
    })
  })

  it("a write that fails part-way leaves the folder as it was: no file replaced, no temporary file left", () => {
    const out = path.join(sandbox.dir, "units")
    const first = sandbox.pmfx(["export", "systemd", path.join(examples, "ecosystem.json"), "-o", out])
    expect(first.code).toBe(0)
    const before = filesUnder(out)
    // A folder where one of the units must go: that unit cannot be written.
    fs.rmSync(path.join(out, "worker.service"))
    fs.mkdirSync(path.join(out, "worker.service"))
    const again = sandbox.pmfx([
      "export",
      "systemd",
      path.join(examples, "ecosystem.json"),
      "-o",
      out,
      "--workdir",
      "/srv/elsewhere",
      "--json"
    ])
    expect(again.code).toBe(3)
    expect(wire(again.stdout).error).toMatchObject({ code: "FILE_ERROR", details: { path: out, reason: "EISDIR" } })
    const after = filesUnder(out)
    const { ["worker.service"]: _gone, ...unchanged } = before
    expect(after).toEqual(unchanged)
    expect(Object.keys(after).filter((name) => name.endsWith(".tmp"))).toEqual([])
  })

  it("--only with a name the file does not define is PROCESS_NOT_FOUND (exit 4) with the closest name", () => {
    const result = sandbox.pmfx([
      "export",
      "compose",
      path.join(examples, "ecosystem.json"),
      "--only",
      "wroker",
      "--json"
    ])
    expect(result.code).toBe(4)
    expect(wire(result.stdout).error).toMatchObject({
      code: "PROCESS_NOT_FOUND",
      details: { process_id: "wroker", suggestion: 'did you mean "worker"?' }
    })
  })

  it("--only exports the named apps and still waits for a dependency left out", () => {
    const result = sandbox.pmfx([
      "export",
      "kubernetes",
      path.join(examples, "ecosystem.json"),
      "--only",
      "nightly-job"
    ])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("name: nightly-job")
    expect(result.stdout).not.toContain("kind: Service")
    expect(result.stdout).toContain("until nc -z api 4000")
    expectNoDaemon()
  })
})
