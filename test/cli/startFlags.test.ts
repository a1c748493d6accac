/**
 * PM2's `start` flags (docs/cli.md "pmfx start"): each lands in the definition the daemon stores
 * as its ecosystem-file key, the important ones change what the app does, and a bad value gets the
 * code and suggestion the same key gets in a file.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { bareWatchFlag, splitPathList, splitStartArgv } from "../../src/cli/commands/startFlags"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { makeSandbox, type Sandbox } from "../support/cli"
import { eventually, fixtures, nodeIdleCommand, json, list, node, ok } from "./helpers"

let sandbox: Sandbox

/**
 * The tests that start apps share one sandbox and daemon (each app has a name of its own, and the
 * tests look up only their own apps); the cleanup after the last one stops everything. A daemon's
 * start and `kill` are ~2 s of CPU each time on a loaded machine.
 */
const oneDaemonForAll = () => {
  beforeAll(() => {
    sandbox = makeSandbox()
  })
  afterAll(() => sandbox.cleanup())
}
/** A fresh sandbox for each test (those that assert on the whole app list or on no daemon at all). */
const oneSandboxEach = () => {
  beforeEach(() => {
    sandbox = makeSandbox()
  })
  afterEach(() => sandbox.cleanup())
}

/** The definition of `name` as the daemon saved it in state.json. */
const stored = (name: string) =>
  eventually(() => {
    const state = JSON.parse(fs.readFileSync(path.join(sandbox.home, "state.json"), "utf8")) as {
      engine: { apps: Array<{ definition: Record<string, unknown> }> }
    }
    const app = state.engine.apps.find((a) => a.definition.name === name)
    expect(app).toBeDefined()
    return app!.definition
  })

/** A script that writes its arguments (as JSON) to the file named by ARGS_OUT, then idles. */
const argsWriter = () =>
  sandbox.write(
    "args-writer.js",
    `require("fs").writeFileSync(process.env.ARGS_OUT, JSON.stringify(process.argv.slice(2))); setInterval(() => {}, 1000)\n`
  )

const readJson = (file: string) => eventually(() => JSON.parse(fs.readFileSync(file, "utf8")) as unknown)

describe("pmfx start flags → ecosystem keys", () => {
  oneDaemonForAll()
  it("stores every flag as its file key", async () => {
    const out = path.join(sandbox.dir, "out.log")
    const err = path.join(sandbox.dir, "err.log")
    const combined = path.join(sandbox.dir, "combined.log")
    ok(sandbox, [
      "start",
      nodeIdleCommand,
      "--name",
      "every-flag",
      "--watch",
      "--ignore-watch",
      "*.{log,tmp}, dist",
      "--ignore-watch",
      "cache",
      "--interpreter",
      "none",
      "--max-memory-restart",
      "200M",
      "--no-autorestart",
      "--cron",
      "0 3 * * *",
      "--namespace",
      "jobs",
      "--time",
      "--log-date-format",
      "YYYY-MM-DD hh:mm:ss A",
      "--merge-logs",
      "-o",
      out,
      "-e",
      err,
      "-l",
      combined,
      "--cwd",
      sandbox.dir,
      "--kill-timeout",
      "2s",
      "--kill-signal",
      "int",
      "--restart-delay",
      "150",
      "--exp-backoff-restart-delay",
      "50ms",
      "--max-restarts",
      "4",
      "--min-uptime",
      "3s"
    ])
    const d = await stored("every-flag")
    expect(d).toMatchObject({
      namespace: "jobs",
      watch: true,
      watch_paths: [sandbox.dir],
      ignore_watch: ["*.{log,tmp}", "dist", "cache"],
      interpreter: null,
      max_memory_restart: 200 * 1024 * 1024,
      autorestart: false,
      cron_restart: "0 3 * * *",
      log_date_format: "YYYY-MM-DD hh:mm:ss A",
      merge_logs: true,
      out_file: out,
      error_file: err,
      log_file: combined,
      cwd: sandbox.dir,
      kill_timeout: 2000,
      kill_signal: "SIGINT",
      restart_delay: 150,
      exp_backoff_restart_delay: 50,
      max_restarts: 4,
      min_uptime: 3000
    })
    // It watches the shared folder, which the next test writes into.
    ok(sandbox, ["delete", "every-flag"])
  })

  it("--watch takes paths (--watch=a,b, or after the command), --node-args and --cron-restart", async () => {
    fs.mkdirSync(path.join(sandbox.dir, "src"))
    fs.mkdirSync(path.join(sandbox.dir, "lib"))
    ok(sandbox, [
      "start",
      nodeIdleCommand,
      "--name",
      "w1",
      "--cwd",
      sandbox.dir,
      "--watch=src,lib",
      "--node-args",
      "--max-old-space-size=64 --no-warnings"
    ])
    ok(sandbox, [
      "start",
      nodeIdleCommand,
      "--name",
      "w2",
      "--cwd",
      sandbox.dir,
      "--watch",
      "src",
      "--cron-restart",
      "@daily"
    ])
    expect(await stored("w1")).toMatchObject({
      watch: true,
      watch_paths: [path.join(sandbox.dir, "src"), path.join(sandbox.dir, "lib")],
      interpreter_args: ["--max-old-space-size=64", "--no-warnings"]
    })
    expect(await stored("w2")).toMatchObject({
      watch: true,
      watch_paths: [path.join(sandbox.dir, "src")],
      cron_restart: "@daily"
    })
    // PM2's docs write the repeatable options with `=`: pm2 start app.js --watch --ignore-watch="node_modules".
    ok(sandbox, [
      "start",
      nodeIdleCommand,
      "--name=w3",
      "--cwd",
      sandbox.dir,
      "--watch",
      "--ignore-watch=node_modules",
      "--ignore-watch=*.log",
      "--env=GREETING=hi there",
      "--env=EMPTY="
    ])
    expect(await stored("w3")).toMatchObject({
      watch: true,
      ignore_watch: ["node_modules", "*.log"],
      env: { GREETING: "hi there", EMPTY: "" }
    })
    ok(sandbox, ["delete", "w1", "w2", "w3"])
  })
})

describe("pmfx start flags at work", () => {
  oneDaemonForAll()
  it("passes the words after -- to the app, with --node-args before the script", async () => {
    const script = argsWriter()
    const outFile = path.join(sandbox.dir, "args.json")
    ok(sandbox, [
      "start",
      script,
      "--name",
      "argv",
      "--node-args",
      "--no-warnings",
      "--env",
      `ARGS_OUT=${outFile}`,
      "--",
      "a",
      "--port",
      "4000",
      "b c"
    ])
    expect(await readJson(outFile)).toEqual(["a", "--port", "4000", "b c"])
    const pid = list(sandbox).find((r) => r.name === "argv")!.pid!
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
    expect(cmdline.slice(1, 3)).toEqual(["--no-warnings", script])
  })

  it("--interpreter none runs a script by its #! line; --interpreter python3 and bash run any file", async () => {
    const direct = sandbox.write("direct", `#!/bin/sh\necho "$@" > "$OUT_DIR/direct.txt"\nexec sleep 100\n`)
    fs.chmodSync(direct, 0o755)
    const py = sandbox.write(
      "job.txt",
      `import os, sys, time\nopen(os.environ["OUT_DIR"] + "/py.txt", "w").write(" ".join(sys.argv[1:]))\ntime.sleep(100)\n`
    )
    const sh = sandbox.write("job.data", `echo "bash $1" > "$OUT_DIR/sh.txt"\nexec sleep 100\n`)
    const env = ["--env", `OUT_DIR=${sandbox.dir}`]
    ok(sandbox, ["start", direct, "--name", "direct", "--interpreter", "none", ...env, "--", "x", "y"])
    ok(sandbox, ["start", py, "--name", "py", "--interpreter", "python3", ...env, "--", "hello"])
    ok(sandbox, ["start", sh, "--name", "sh", "--interpreter", "bash", ...env, "--", "one"])
    const text = (file: string) => eventually(() => fs.readFileSync(path.join(sandbox.dir, file), "utf8").trim())
    expect(await text("direct.txt")).toBe("x y")
    expect(await text("py.txt")).toBe("hello")
    expect(await text("sh.txt")).toBe("bash one")
  })

  it("--no-autorestart leaves an app that exited stopped, with no restart", async () => {
    ok(sandbox, ["start", `${node} -e "setTimeout(() => process.exit(1), 200)"`, "--name", "once", "--no-autorestart"])
    const row = await eventually(() => {
      const found = list(sandbox).find((r) => r.name === "once")!
      expect(found.status).not.toBe("online")
      expect(found.pid).toBeNull()
      return found
    })
    expect(row.restarts).toBe(0)
    expect(["stopped", "errored"]).toContain(row.status)
  })

  it("--kill-signal: pmfx stop sends it (SIGINT here), where an app without it gets SIGTERM", async () => {
    const recorder = path.join(fixtures, "record-signal.js")
    const signals = (name: string) => path.join(sandbox.dir, `${name}.signals`)
    const ready = (name: string) => path.join(sandbox.dir, `${name}.ready`)
    for (const [name, extra] of [
      ["int", ["--kill-signal", "INT"]],
      ["term", []]
    ] as const) {
      ok(sandbox, [
        "start",
        recorder,
        "--name",
        name,
        ...extra,
        "--env",
        `SIGNAL_FILE=${signals(name)}`,
        "--env",
        `READY_FILE=${ready(name)}`
      ])
      await eventually(() => expect(fs.existsSync(ready(name))).toBe(true))
    }
    ok(sandbox, ["stop", "int", "term"])
    expect(fs.readFileSync(signals("int"), "utf8")).toBe("SIGINT\n")
    expect(fs.readFileSync(signals("term"), "utf8")).toBe("SIGTERM\n")
  })

  it("--wait-ready is PM2's: a Node app's unguarded process.send('ready') works, and start returns once it was sent", async () => {
    // PM2's documented app: process.send('ready') without a guard, some time after it starts.
    const sent = path.join(sandbox.dir, "ready-sent")
    const app = sandbox.write(
      "graceful-start.js",
      `setTimeout(() => { require("fs").writeFileSync(${JSON.stringify(sent)}, "yes"); process.send("ready") }, 800); setInterval(() => {}, 1000)\n`
    )
    const result = ok(sandbox, ["start", app, "--name", "graceful-start", "--wait-ready", "--listen-timeout", "30s"])
    expect(result.stdout).toContain("started 1 app, all ready")
    // It returned after the message, not when the process was spawned.
    expect(fs.existsSync(sent)).toBe(true)
    expect(await stored("graceful-start")).toMatchObject({ wait_ready: true, listen_timeout: 30_000 })
    const row = list(sandbox).find((r) => r.name === "graceful-start")!
    expect(row).toMatchObject({ status: "online", restarts: 0 })
    // A program that is not Node has no channel to send 'ready': --wait-ready only waits for it to be online.
    ok(sandbox, ["start", "sleep 1000", "--name", "not-node", "--wait-ready", "--shutdown-with-message"])
    expect(await stored("not-node")).toMatchObject({ wait_ready: false, shutdown_with_message: true })
    ok(sandbox, ["delete", "graceful-start", "not-node"])
  })

  it("--max-memory-restart restarts an app that grows above the size", async () => {
    ok(sandbox, [
      "start",
      path.join(fixtures, "grow-memory.js"),
      "--name",
      "leak",
      "--max-memory-restart",
      "60M",
      "--env",
      "GROW_TO_MB=150"
    ])
    await eventually(
      () => expect(list(sandbox).find((r) => r.name === "leak")!.restarts).toBeGreaterThanOrEqual(1),
      30_000
    )
    // It grows to 150 MB again after each restart: not beside the tests that follow.
    ok(sandbox, ["delete", "leak"])
  })
})

describe("pmfx start flags: bad values", () => {
  oneSandboxEach()
  // flag, bad value, the file key that refuses the same value
  const cases: ReadonlyArray<[string, string, string]> = [
    ["--cron-restart", "61 * * * *", "cron_restart"],
    ["--cron", "every day", "cron_restart"],
    ["--max-memory-restart", "12Q", "max_memory_restart"],
    ["--max-memory", "lots", "max_memory_restart"],
    ["--kill-timeout", "soon", "kill_timeout"],
    ["--kill-signal", "SIGFOO", "kill_signal"],
    ["--restart-delay", "-1", "restart_delay"],
    ["--exp-backoff-restart-delay", "fast", "exp_backoff_restart_delay"],
    ["--max-restarts", "many", "max_restarts"],
    ["--min-uptime", "1 hour", "min_uptime"],
    ["--listen-timeout", "soon", "listen_timeout"],
    ["--node-args", '"unclosed', "node_args"],
    ["--namespace", " ", "namespace"],
    ["--instances", "lots", "instances"],
    ["-i", "1.5", "instances"],
    ["--port", "70000", "port"],
    ["--port", "5-3", "port"]
  ]
  const flagName = (flag: string) =>
    flag === "-i"
      ? "--instances"
      : flag === "--cron"
        ? "--cron-restart"
        : flag === "--max-memory"
          ? "--max-memory-restart"
          : flag
  type ErrorBody = { error: { code: string; details: { field: string; value: unknown; suggestion: string } } }
  it("each gives exit 3 with the field named after the flag and the suggestion a file gets for its key", async () => {
    // (A few at a time: each case is one short CLI run.)
    for (let i = 0; i < cases.length; i += 5) {
      await Promise.all(
        cases.slice(i, i + 5).map(async ([flag, value, key], j) => {
          const what = `${flag} ${JSON.stringify(value)}`
          const result = await sandbox.pmfxAsync(["start", nodeIdleCommand, "--name", "bad", flag, value, "--json"])
          expect(result.code, `${what}: ${result.stdout}`).toBe(3)
          const error = json<ErrorBody>(result).error
          expect(error.code, what).toBe("INVALID_CONFIG")
          expect(error.details.field, what).toBe(flagName(flag))
          expect(error.details.value, what).toBe(value)
          // The same value under the key in a file, through the same validator.
          const file = sandbox.write(
            `bad-${i + j}.json`,
            JSON.stringify({ apps: [{ name: "bad", script: "sleep", args: ["9"], [key]: value }] })
          )
          const fromFile = await Effect.runPromise(
            Effect.flip(
              Effect.flatMap(ConfigLoader, (loader) => loader.loadFile(file, { environment: process.env })).pipe(
                Effect.provide(ConfigLoader.Default)
              )
            )
          )
          expect(fromFile._tag, what).toBe("INVALID_CONFIG")
          const details = fromFile._tag === "INVALID_CONFIG" ? fromFile.details : undefined
          expect(details?.field, what).toBe(`apps[0].${key}`)
          expect(error.details.suggestion, what).toBe(details?.suggestion)
        })
      )
    }
    // Refused before anything ran.
    expect(fs.existsSync(path.join(sandbox.home, "daemon.pid"))).toBe(false)
  })

  it("refuses app flags and -- args with an ecosystem file (exit 2), and the daemon keeps its apps", () => {
    ok(sandbox, ["start", nodeIdleCommand, "--name", "keep"])
    const file = sandbox.write("eco.json", JSON.stringify({ apps: [{ name: "f", script: "sleep", args: ["100"] }] }))
    const watch = sandbox.pmfx(["start", file, "--cron-restart", "0 3 * * *"])
    expect(watch.code).toBe(2)
    expect(watch.stderr).toContain("--cron-restart")
    const args = sandbox.pmfx(["start", file, "--", "x"])
    expect(args.code).toBe(2)
    expect(args.stderr).toContain("args")
    expect(list(sandbox).map((r) => [r.name, r.status])).toEqual([["keep", "online"]])
  })
})

describe("bareWatchFlag and splitPathList", () => {
  const argv = (...args: Array<string>) => ["node", "pmfx", ...args]
  it("gives a bare --watch the value true, and --watch the paths after the command", () => {
    expect(bareWatchFlag(argv("start", "app.js", "--watch"))).toEqual(argv("start", "app.js", "--watch=true"))
    expect(bareWatchFlag(argv("start", "--watch", "app.js"))).toEqual(argv("start", "--watch=true", "app.js"))
    expect(bareWatchFlag(argv("start", "app.js", "--watch", "src,lib", "--json"))).toEqual(
      argv("start", "app.js", "--watch=src,lib", "--json")
    )
    expect(bareWatchFlag(argv("start", "app.js", "--watch", "--time"))).toEqual(
      argv("start", "app.js", "--watch=true", "--time")
    )
    // The value of another option is not the command.
    expect(bareWatchFlag(argv("start", "--name", "api", "--watch", "app.js"))).toEqual(
      argv("start", "--name", "api", "--watch=true", "app.js")
    )
    expect(bareWatchFlag(argv("--url", "http://h:1", "start", "a.js", "--watch"))).toEqual(
      argv("--url", "http://h:1", "start", "a.js", "--watch=true")
    )
    // Nothing after -- and no other command is touched.
    expect(bareWatchFlag(argv("start", "a.js", "--", "--watch"))).toEqual(argv("start", "a.js", "--", "--watch"))
    expect(bareWatchFlag(argv("logs", "--watch"))).toEqual(argv("logs", "--watch"))
  })

  it("takes the words after -- out of a start command line as the app's arguments", () => {
    expect(splitStartArgv(argv("start", "a.js", "--watch", "--", "--watch", "x"))).toEqual({
      argv: argv("start", "a.js", "--watch=true"),
      appArgs: ["--watch", "x"]
    })
    expect(splitStartArgv(argv("start", "a.js"))).toEqual({ argv: argv("start", "a.js"), appArgs: [] })
    expect(splitStartArgv(argv("logs", "api", "--", "x"))).toEqual({
      argv: argv("logs", "api", "--", "x"),
      appArgs: []
    })
  })

  it("splits at commas and spaces but not inside braces", () => {
    expect(splitPathList("src, lib  test")).toEqual(["src", "lib", "test"])
    expect(splitPathList("*.{log,tmp},dist")).toEqual(["*.{log,tmp}", "dist"])
  })
})
