/**
 * Shared helpers of the log tests: a fresh `PMFX_HOME` per test (removed afterwards), a resolved
 * app definition, the `LogStore` layer over that home, real `node -e` children (killed after each
 * test), and readers for what ended up on disk.
 */
import { LogOutput } from "../../src/logs/LogOutput"
import { Effect, Layer } from "effect"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { onTestFinished } from "vitest"
import { Paths } from "../../src/shared/Paths"
import { type AppDefinition, appDefaults, pm2AppDefaults } from "../../src/domain/AppDefinition"
import { LogStore } from "../../src/logs/LogStore"
import { listRotatedFiles } from "../../src/logs/rotatedFiles"

// Cleanups are registered on the running test (onTestFinished), not by a module-level afterEach:
// test files share this module (vitest.config.ts, isolate: false), so a hook registered when it is
// first imported would belong to the first file only.

/** A fresh temporary home, removed after the test. */
export const freshHome = (): string => {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-logs-"))
  onTestFinished(() => fs.rmSync(home, { recursive: true, force: true }))
  return home
}

export const testApp = (overrides: Partial<AppDefinition> = {}): AppDefinition => ({
  name: "app",
  namespace: appDefaults.namespace,
  script: "app.js",
  args: [],
  interpreter: null,
  config_file: null,
  shell: null,
  cwd: os.tmpdir(),
  instances: 1,
  port: null,
  env: {},
  env_file: null,
  max_memory_restart: null,
  max_restarts: appDefaults.max_restarts,
  min_uptime: appDefaults.min_uptime,
  restart_delay: appDefaults.restart_delay,
  exp_backoff_restart_delay: appDefaults.exp_backoff_restart_delay,
  kill_timeout: appDefaults.kill_timeout,
  autorestart: appDefaults.autorestart,
  user: null,
  group: null,
  umask: null,
  watch: false,
  watch_paths: [],
  ignore_watch: [],
  watch_options: {},
  depends_on: [],
  ready_log_line: null,
  out_file: null,
  error_file: null,
  log_file: null,
  pid_file: null,
  log_date_format: appDefaults.log_date_format,
  log_type: "text",
  merge_logs: false,
  max_log_size: null,
  max_log_files: appDefaults.max_log_files,
  compress_logs: false,
  max_line_length: appDefaults.max_line_length,
  rotation_schedule: null,
  health_check: null,
  alerts: null,
  exec_mode: appDefaults.exec_mode,
  wait_ready: appDefaults.wait_ready,
  listen_timeout: appDefaults.listen_timeout,
  shutdown_with_message: appDefaults.shutdown_with_message,
  ...pm2AppDefaults,
  ...overrides
})

/** `LogStore` over `home`. */
export const storeLayer = (home: string): Layer.Layer<LogStore> =>
  LogStore.DefaultWithoutDependencies.pipe(
    Layer.provide(LogOutput.files),
    Layer.provide(
      Layer.succeed(
        Paths,
        Paths.make({
          home,
          logs: path.join(home, "logs"),
          pids: path.join(home, "pids"),
          pipes: path.join(home, "pipes"),
          socket: path.join(home, "pmfx.sock"),
          state: path.join(home, "state.json"),
          daemonLog: path.join(home, "daemon.log"),
          daemonPid: path.join(home, "daemon.pid")
        })
      )
    )
  )

export interface Child {
  readonly process: ChildProcessWithoutNullStreams
  /** Resolves once the child has exited and its pipes are closed. */
  readonly closed: Promise<number | null>
}

/** Runs `node -e script ...args` with piped stdio; it is killed after the test if still running. */
export const spawnNode = (script: string, ...args: ReadonlyArray<string>): Child => {
  const child = spawn(process.execPath, ["-e", script, ...args], { stdio: ["pipe", "pipe", "pipe"] })
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  })
  const closed = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))
  return { process: child, closed }
}

/** Waits until the child has exited and its pipes are closed; fails on a non-zero exit. */
export const exited = (child: Child): Effect.Effect<void> =>
  Effect.promise(() => child.closed).pipe(
    Effect.flatMap((code) => (code === 0 ? Effect.void : Effect.dieMessage(`child exited with ${code}`)))
  )

/**
 * Polls `condition` every 10 ms until it holds; dies after `timeoutMs`. Real timers, so it works
 * under `it.effect`'s TestClock too.
 */
export const eventually = (condition: () => boolean, timeoutMs = 30_000): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const started = Date.now()
    const timer = setInterval(() => check(), 10)
    const check = () => {
      if (condition()) {
        clearInterval(timer)
        resume(Effect.void)
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(timer)
        resume(Effect.die(new Error(`condition not met within ${timeoutMs} ms`)))
      }
    }
    check()
    return Effect.sync(() => clearInterval(timer))
  })

/** The lines of a file (no trailing empty line). */
export const fileLines = (file: string): Array<string> => {
  const text = fs.readFileSync(file, "utf8")
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}

/** Every line of `file` and its rotated files (gunzipping `.gz` ones), oldest first. */
export const allRotatedLines = (file: string): Effect.Effect<Array<string>> =>
  Effect.promise(() => listRotatedFiles(file)).pipe(
    Effect.map((rotated) => {
      const lines: Array<string> = []
      for (const r of [...rotated].reverse()) {
        const data = fs.readFileSync(r.path)
        const text = (r.compressed ? zlib.gunzipSync(data) : data).toString("utf8")
        lines.push(...text.split("\n").filter((_, i, all) => i < all.length - 1 || all[i] !== ""))
      }
      if (fs.existsSync(file)) lines.push(...fileLines(file))
      return lines
    })
  )

/** The message of a stored text line in the default (ISO) format. */
export const isoMessage = (line: string): string => {
  const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z (.*)$/s.exec(line)
  if (match === null) throw new Error(`not an ISO-stamped line: ${JSON.stringify(line.slice(0, 100))}`)
  return match[1]!
}

/**
 * A child that writes `count` numbered lines (`line <n>`) to stdout as fast as it can, in batches
 * of 1,000, honouring backpressure.
 */
export const FLOOD_SCRIPT = `
const count = Number(process.argv[1]);
let i = 0;
const go = () => {
  while (i < count) {
    let batch = "";
    for (let j = 0; j < 1000 && i < count; j++, i++) batch += "line " + i + "\\n";
    if (!process.stdout.write(batch)) { process.stdout.once("drain", go); return; }
  }
};
go();
`

/** Checks that `messages` are exactly `line 0` … `line <count-1>` in order. */
export const expectNumbered = (messages: ReadonlyArray<string>, count: number, first = 0): void => {
  if (messages.length !== count) throw new Error(`expected ${count} lines, got ${messages.length}`)
  for (let i = 0; i < count; i++) {
    if (messages[i] !== `line ${first + i}`) {
      throw new Error(`line ${i}: expected "line ${first + i}", got ${JSON.stringify(messages[i]!.slice(0, 80))}`)
    }
  }
}
