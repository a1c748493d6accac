/** `pmfx start`: commands, scripts and ecosystem files, through the built binary and a real daemon. */
import { beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { onTestFinished } from "vitest"
import { makeSandbox, type Sandbox } from "../support/cli"
import {
  allOnline,
  eventually,
  fixtures,
  freePorts,
  hasScript,
  idleCommand,
  json,
  list,
  node,
  ok,
  pmfxOnTerminal,
  type Row,
  writtenEnv
} from "./helpers"
import { sharedSandbox } from "./sharedSandbox"

/** The file's tests share one daemon, each with its own folder (sharedSandbox.ts). */
let sandbox: Sandbox
const shared = sharedSandbox()
beforeEach(() => {
  sandbox = shared()
})

/**
 * A sandbox of the test's own instead, for a test that proves no daemon was started, or reads what
 * the daemon's environment holds: a fresh home, with no daemon until a command starts one.
 */
const useOwnSandbox = () => {
  const own = makeSandbox()
  onTestFinished(() => own.cleanup())
  sandbox = own
}

const healthServer = path.join(fixtures, "health-server.js")
const writeEnv = path.join(fixtures, "write-env.js")

describe("pmfx start <command>", () => {
  it("starts a command with --name, -i and --port, and prints the rows with --json", async () => {
    const base = await freePorts(2)
    const result = sandbox.pmfx([
      "start",
      `${node} ${healthServer}`,
      "--name",
      "api",
      "-i",
      "2",
      "--port",
      `${base}-${base + 1}`,
      "--json"
    ])
    expect(result.code).toBe(0)
    const rows = json(result)
    expect(rows.map((r) => [r.name, r.instance, r.port])).toEqual([
      ["api", 0, String(base)],
      ["api", 1, String(base + 1)]
    ])
    for (const row of rows) expect(row.pid).toEqual(expect.any(Number))
    const online = await allOnline(sandbox, 2)
    expect(online.map((r) => r.id)).toEqual(rows.map((r) => r.id))
  })

  it("prints a table without --json, and names the app after the script a program runs", () => {
    const result = sandbox.pmfx(["start", `node ${writeEnv}`, "--env", `ENV_OUT_DIR=${sandbox.dir}`])
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("started 1 app")
    expect(result.stdout).toMatch(/ID\s+Name/)
    expect(list(sandbox).map((r) => r.name)).toEqual(["write-env"])
  })

  it("names an app running inline code after its interpreter", () => {
    const result = sandbox.pmfx(["start", `node -e "setInterval(() => {}, 1000)"`, "--json"])
    expect(result.code).toBe(0)
    expect(json(result).map((r) => r.name)).toEqual(["node"])
  })

  it("runs a script given as a path relative to the caller's folder, with spaces in its name", async () => {
    const outDir = path.join(sandbox.dir, "out")
    fs.mkdirSync(outDir)
    sandbox.write("my app.js", fs.readFileSync(writeEnv, "utf8"))
    const result = sandbox.pmfx(["start", "my app.js", "--name", "spaced", "--env", `ENV_OUT_DIR=${outDir}`])
    expect(result.code).toBe(0)
    const env = await writtenEnv(outDir)
    expect(env.PMFX_INSTANCE_ID).toBe("0")
  })

  it("sets variables with --env KEY=VALUE, taken literally", async () => {
    const outDir = path.join(sandbox.dir, "out")
    fs.mkdirSync(outDir)
    ok(sandbox, [
      "start",
      `${node} ${writeEnv}`,
      "--name",
      "envy",
      "--env",
      `ENV_OUT_DIR=${outDir}`,
      "--env",
      "GREETING=hello world",
      "--env",
      "PRICE=$5 ${NOPE}"
    ])
    const env = await writtenEnv(outDir)
    expect(env.GREETING).toBe("hello world")
    expect(env.PRICE).toBe("$5 ${NOPE}")
  })

  it("gives the app the environment of the shell that ran start (not the daemon's)", async () => {
    // The first start below starts the daemon, with FOO in its environment.
    useOwnSandbox()
    const first = path.join(sandbox.dir, "first")
    const second = path.join(sandbox.dir, "second")
    fs.mkdirSync(first)
    fs.mkdirSync(second)
    ok(sandbox, ["start", `${node} ${writeEnv}`, "--name", "one", "--env", `ENV_OUT_DIR=${first}`], { FOO: "bar" })
    ok(sandbox, ["start", `${node} ${writeEnv}`, "--name", "two", "--env", `ENV_OUT_DIR=${second}`], { OTHER: "x" })
    const one = await writtenEnv(first)
    const two = await writtenEnv(second)
    expect(one.FOO).toBe("bar")
    expect(two.FOO).toBeUndefined()
    expect(two.OTHER).toBe("x")
  })

  it("lands ten starts run at once: ten apps, and state.json stays valid", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sandbox.pmfxAsync(["start", idleCommand, "--name", `p${i}`, "--json"]))
    )
    for (const result of results) expect(result.code, result.stderr).toBe(0)
    const rows = list(sandbox)
    expect(new Set(rows.map((r) => r.name))).toEqual(new Set(Array.from({ length: 10 }, (_, i) => `p${i}`)))
    expect(new Set(rows.map((r) => r.id)).size).toBe(10)
    const state = JSON.parse(fs.readFileSync(path.join(sandbox.home, "state.json"), "utf8"))
    expect(state).toBeTypeOf("object")
  })
})

describe("pmfx start <name of an app the daemon holds>", () => {
  it("starts the stopped app by name or id (as PM2 does), and exits 5 when it runs", async () => {
    ok(sandbox, ["start", idleCommand, "--name", "held", "-i", "2"])
    const ids = (await allOnline(sandbox, 2)).map((row) => row.id)
    const firstPids = list(sandbox).map((row) => row.pid)
    ok(sandbox, ["stop", "held"])
    const started = sandbox.pmfx(["start", "held", "--json"])
    expect(started.code, started.stderr).toBe(0)
    expect(json(started).map((row) => row.name)).toEqual(["held", "held"])
    await allOnline(sandbox, 2)
    // The same two rows, with new processes: nothing was created.
    const rows = list(sandbox)
    expect(rows.map((row) => row.id)).toEqual(ids)
    expect(rows.map((row) => row.pid)).not.toEqual(firstPids)

    ok(sandbox, ["stop", String(ids[1])])
    const byId = sandbox.pmfx(["start", String(ids[1])])
    expect(byId.code, byId.stderr).toBe(0)
    expect(byId.stdout).toContain("started 1 app")
    await allOnline(sandbox, 2)

    const running = sandbox.pmfx(["start", "held"])
    expect(running.code).toBe(5)
    expect(running.stderr).toContain("PROCESS_ALREADY_RUNNING")
    // With an option that describes a new app, the word is a command again (and the name is taken).
    const asCommand = sandbox.pmfx(["start", "held", "--name", "held"])
    expect(asCommand.code).toBe(5)
    expect(asCommand.stderr).toContain("PROCESS_ALREADY_EXISTS")
    expect(list(sandbox)).toHaveLength(2)
  })
})

describe("pmfx start all | <namespace> | <name that is also a file>", () => {
  it("starts every stopped app with all, those of a namespace by its name, and an app before a file of its name", async () => {
    const config = path.join(sandbox.dir, "apps.json")
    const idle = ["-e", "setInterval(() => {}, 1000)"]
    fs.writeFileSync(
      config,
      JSON.stringify({
        apps: [
          { name: "web", script: node, args: idle, namespace: "front" },
          { name: "cache", script: node, args: idle, namespace: "front" },
          { name: "jobs", script: node, args: idle }
        ]
      })
    )
    ok(sandbox, ["start", config])
    const ids = (await allOnline(sandbox, 3)).map((row) => row.id)
    ok(sandbox, ["stop", "all"])

    const front = sandbox.pmfx(["start", "front"])
    expect(front.code, front.stderr).toBe(0)
    expect(front.stdout).toContain("started 2 apps")
    await eventually(() =>
      expect(list(sandbox).map((r) => [r.name, r.status])).toEqual([
        ["web", "online"],
        ["cache", "online"],
        ["jobs", "stopped"]
      ])
    )

    // all: only the stopped app is started, and nothing new is created.
    const all = sandbox.pmfx(["start", "all"])
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout).toContain("started 1 app")
    await allOnline(sandbox, 3)
    expect(list(sandbox).map((r) => r.id)).toEqual(ids)
    const again = sandbox.pmfx(["start", "all"])
    expect(again.code).toBe(5)
    expect(again.stderr).toContain("PROCESS_ALREADY_RUNNING")
    // An id is named as a process, not read as a count.
    const byId = sandbox.pmfx(["start", String(ids[0])])
    expect(byId.code).toBe(5)
    expect(byId.stderr).toContain(`process ${ids[0]} is already running`)

    // A file named like an app in the current folder: the app wins, as in PM2.
    ok(sandbox, ["stop", "jobs"])
    fs.chmodSync(sandbox.write("jobs", "#!/bin/sh\nexit 0\n"), 0o755)
    const byName = sandbox.pmfx(["start", "jobs"])
    expect(byName.code, byName.stderr).toBe(0)
    await allOnline(sandbox, 3)
    expect(list(sandbox)).toHaveLength(3)
  })

  it("start all with no app is PROCESS_NOT_FOUND (exit 4), not a program named all", () => {
    const result = sandbox.pmfx(["start", "all"])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain("PROCESS_NOT_FOUND")
    expect(result.stderr).toContain("start an app first")
    expect(list(sandbox)).toEqual([])
  })
})

describe("pmfx start <ecosystem file>", () => {
  const ecosystem = (base: number, outDir: string) =>
    JSON.stringify({
      apps: [
        {
          name: "web",
          script: healthServer,
          port: String(base),
          env: { HEALTHY_FOR_MS: "100000000" },
          health_check: { url: "http://127.0.0.1:{port}/health", interval: 1 }
        },
        {
          name: "envs",
          script: "./write-env.js",
          env: { ENV_OUT_DIR: outDir, MODE: "development" },
          env_production: { MODE: "production" }
        }
      ]
    })

  const setup = async () => {
    const base = await freePorts(1)
    const outDir = path.join(sandbox.dir, "out")
    fs.mkdirSync(outDir)
    fs.copyFileSync(writeEnv, path.join(sandbox.dir, "write-env.js"))
    return { base, outDir, file: sandbox.write("apps.json", ecosystem(base, outDir)) }
  }

  it("starts every app of the file, with paths relative to the file", async () => {
    const { base, file } = await setup()
    const result = sandbox.pmfx(["start", file, "--json"])
    expect(result.code, result.stderr).toBe(0)
    const rows = json<{ processes: Array<Row> }>(result).processes
    expect(rows.map((r) => r.name).sort()).toEqual(["envs", "web"])
    expect(rows.find((r) => r.name === "web")?.port).toBe(String(base))
    await allOnline(sandbox, 2)
  })

  it("narrows --config <file> to one app with --name, and starts the rest later", async () => {
    const { file } = await setup()
    const one = sandbox.pmfx(["start", "--config", file, "--name", "envs", "--json"])
    expect(one.code, one.stderr).toBe(0)
    expect(json<{ processes: Array<Row> }>(one).processes.map((r) => r.name)).toEqual(["envs"])
    expect(list(sandbox).map((r) => r.name)).toEqual(["envs"])

    // The whole file now: envs runs already (unchanged), web is new.
    const all = sandbox.pmfx(["start", file])
    expect(all.code, all.stderr).toBe(0)
    expect(all.stdout).toMatch(/envs\s+default\s+unchanged/)
    expect(all.stdout).toMatch(/web\s+default\s+create\s+-\s+ok/)
    expect(
      list(sandbox)
        .map((r) => r.name)
        .sort()
    ).toEqual(["envs", "web"])
  })

  it("starts stopped apps of the file again, and reports running ones unchanged (exit 0)", async () => {
    const { file } = await setup()
    ok(sandbox, ["start", file])
    ok(sandbox, ["stop", "envs"])
    const again = sandbox.pmfx(["start", file, "--json"])
    expect(again.code, again.stderr).toBe(0)
    const answer = json<{ apps: Array<{ name: string; action: string }>; processes: Array<Row> }>(again)
    expect(answer.apps.map((app) => [app.name, app.action])).toEqual([
      ["web", "unchanged"],
      ["envs", "start"]
    ])
    expect(answer.processes.map((r) => r.name)).toContain("envs")
    await allOnline(sandbox, 2)

    const running = sandbox.pmfx(["start", file])
    expect(running.code, running.stderr).toBe(0)
    expect(running.stdout).toMatch(/web\s+default\s+unchanged/)
    expect(running.stdout).toMatch(/envs\s+default\s+unchanged/)
  })

  it("selects the env_<name> block with --env <name> and adds --env KEY=VALUE", async () => {
    const { file, outDir } = await setup()
    ok(sandbox, ["start", file, "--name", "envs", "--env", "production", "--env", "EXTRA=1"])
    const env = await writtenEnv(outDir)
    expect(env.MODE).toBe("production")
    expect(env.EXTRA).toBe("1")
    expect(env.ENV_OUT_DIR).toBe(outDir)
  })

  it("uses the development env without --env", async () => {
    const { file, outDir } = await setup()
    ok(sandbox, ["start", "--config", file, "--name", "envs"])
    expect((await writtenEnv(outDir)).MODE).toBe("development")
  })

  it("exits 4 for a --name the file does not define, suggesting the closest", async () => {
    useOwnSandbox()
    const { file } = await setup()
    const result = sandbox.pmfx(["start", file, "--name", "evns"])
    expect(result.code).toBe(4)
    expect(result.stderr).toContain("PROCESS_NOT_FOUND")
    expect(result.stderr).toContain('did you mean "envs"?')
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
  })
})

describe("pmfx start --wait-ready", () => {
  it("returns once the health check passes", async () => {
    const base = await freePorts(1)
    const result = sandbox.pmfx(
      [
        "start",
        healthServer,
        "--name",
        "web",
        "--port",
        String(base),
        "--health-check-url",
        "http://127.0.0.1:{port}/health",
        "--wait-ready",
        "--json"
      ],
      { HEALTHY_FOR_MS: "100000000" }
    )
    expect(result.code, result.stderr).toBe(0)
    const rows = json<Array<Row>>(result)
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({ name: "web", status: "online", health_status: "healthy" })
    // Not a terminal: no spinner on stderr.
    expect(result.stderr).toBe("")
  })

  it("exits 6 with READY_TIMEOUT when the app does not become ready in --wait-timeout", async () => {
    const base = await freePorts(1)
    const result = sandbox.pmfx(
      [
        "start",
        healthServer,
        "--name",
        "sick",
        "--port",
        String(base),
        "--health-check-url",
        "http://127.0.0.1:{port}/health",
        "--wait-ready",
        "--wait-timeout",
        "1s"
      ],
      { HEALTHY_FOR_MS: "0" }
    )
    expect(result.code).toBe(6)
    expect(result.stderr).toContain("READY_TIMEOUT")
    expect(result.stderr).toContain("sick")
    expect(result.stderr).not.toMatch(/\r|\u001b\[/)
  })
})

describe("pmfx start --wait-ready of an app that exits at once", () => {
  it("exits 6 saying the app keeps exiting and how to see why, instead of waiting longer", () => {
    const quick = sandbox.write("quick.js", 'console.error("Error: no config"); process.exit(1)\n')
    const result = sandbox.pmfx(["start", quick, "--name", "quick", "--wait-ready", "--wait-timeout", "4s"])
    expect(result.code).toBe(6)
    expect(result.stderr).toMatch(/^READY_TIMEOUT quick was not ready after 4s\n  state: id \d+ \w+\n/)
    expect(result.stderr).toContain(
      "  suggestion: it keeps exiting, and pmfx keeps restarting it (errored after max_restarts): see why with `pmfx logs quick --lines 50`, fix it, then `pmfx restart quick` (or `pmfx delete quick`)\n"
    )
    // The daemon still answers, and its log says why.
    expect(sandbox.pmfx(["logs", "quick", "--err", "--lines", "1", "--raw"]).stdout).toBe("Error: no config\n")
  })
})

describe.skipIf(!hasScript)("pmfx start --wait-ready on a terminal", () => {
  it("shows a spinner on stderr while it waits, and clears it", async () => {
    const base = await freePorts(1)
    const result = pmfxOnTerminal(sandbox, [
      "start",
      healthServer,
      "--name",
      "slow",
      "--port",
      String(base),
      "--health-check-url",
      "http://127.0.0.1:{port}/health",
      "--wait-ready",
      "--wait-timeout",
      "1s"
    ])
    expect(result.code).toBe(6)
    expect(result.output).toContain("waiting for slow to be ready")
    expect(result.output).toContain("\r\u001b[K")
    expect(result.output).toContain("READY_TIMEOUT")
  })
})

describe("pmfx start errors", () => {
  it("exits 5 when the name is taken", () => {
    ok(sandbox, ["start", idleCommand, "--name", "dup"])
    const result = sandbox.pmfx(["start", idleCommand, "--name", "dup"])
    expect(result.code).toBe(5)
    expect(result.stderr).toContain("PROCESS_ALREADY_EXISTS")
    expect(result.stderr).toContain("suggestion:")
    expect(result.stdout).toBe("")
    const asJson = json<{ success: boolean; error: { code: string } }>(
      sandbox.pmfx(["start", idleCommand, "--name", "dup", "--json"])
    )
    expect(asJson).toMatchObject({ success: false, error: { code: "PROCESS_ALREADY_EXISTS" } })
  })

  it("exits 6 when the executable does not exist", () => {
    const result = sandbox.pmfx(["start", "pmfx-no-such-program-here --flag"])
    expect(result.code).toBe(6)
    expect(result.stderr).toContain("PROCESS_START_FAILED")
  })

  it("exits 3 for a malformed file, naming its line", () => {
    const file = sandbox.write("broken.json", '{\n  "apps": [\n    { "script": "a.js" ]\n  ]\n}\n')
    const result = sandbox.pmfx(["start", file])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("CONFIG_PARSE_ERROR")
    expect(result.stderr).toContain(`${file}:3`)
  })

  it("exits 3 for an invalid file, with every problem", () => {
    const file = sandbox.write("bad.yaml", "apps:\n  - name: api\n    scirpt: server.js\n")
    const result = sandbox.pmfx(["start", file])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("INVALID_CONFIG")
    expect(result.stderr).toContain('rename "scirpt" to "script"')
  })

  it("exits 3 for an option value the configuration refuses (a numeric name)", () => {
    const result = sandbox.pmfx(["start", idleCommand, "--name", "123"])
    expect(result.code).toBe(3)
    expect(result.stderr).toContain("INVALID_CONFIG")
  })

  // (App settings such as --port, -i and --max-memory-restart are checked as in a file, exit 3:
  // test/cli/startFlags.test.ts.)
  const usage: ReadonlyArray<[string, ReadonlyArray<string>, string]> = [
    ["--wait-timeout soon", ["--wait-timeout", "soon"], "--wait-timeout"],
    ["--wait-timeout 11m (over the daemon's 10m)", ["--wait-timeout", "11m"], "--wait-timeout"],
    ["--env 1X=y", ["--env", "1X=y"], "--env"],
    ["--health-check-url not-a-url", ["--health-check-url", "not a url"], "--health-check-url"],
    ["--env production for a command", ["--env", "production"], "--env"],
    ["an unknown option", ["--bogus"], "--bogus"]
  ]
  for (const [title, args, mentioned] of usage) {
    it(`exits 2 for ${title}, saying what is wrong on stderr`, () => {
      useOwnSandbox()
      const result = sandbox.pmfx(["start", idleCommand, ...args])
      expect(result.code).toBe(2)
      expect(result.stderr).toContain(mentioned)
      expect(result.stdout).toBe("")
      // Refused before anything ran.
      expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
    })
  }

  it("exits 2 without a command, and for app options given with a file", () => {
    expect(sandbox.pmfx(["start"]).code).toBe(2)
    const file = sandbox.write("one.json", JSON.stringify({ apps: [{ name: "a", script: "sleep", args: ["100"] }] }))
    const result = sandbox.pmfx(["start", file, "--port", "3000"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("--port")
    expect(sandbox.pmfx(["start", file, "--config", file]).code).toBe(2)
  })
})
