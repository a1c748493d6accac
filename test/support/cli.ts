/** Runs the built `pmfx` binary as a user would, in a fresh temporary `PMFX_HOME`. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawnSmall, spawnSyncSmall } from "./smallSpawner"
import { pauseSync, requestSync } from "./syncRequest"

export const PMFX_BIN = path.resolve(__dirname, "../../dist/pmfx.cjs")
/**
 * The executable users run (package.json "bin"): a shell script that starts the CLI from its
 * startup snapshot, or through PMFX_BIN (src/pmfx.sh). The sandboxes' commands run it.
 */
export const PMFX_EXECUTABLE = path.resolve(__dirname, "../../dist/pmfx")

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface Sandbox {
  /** A fresh folder for config files, removed by `cleanup`. */
  readonly dir: string
  /** `PMFX_HOME` for the commands run through this sandbox. */
  readonly home: string
  readonly write: (name: string, content: string) => string
  readonly pmfx: (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => CliResult
  /** The same, without blocking the test (to run several commands at once). */
  readonly pmfxAsync: (args: ReadonlyArray<string>, env?: Readonly<Record<string, string>>) => Promise<CliResult>
  /**
   * Stops the sandbox's daemon and every process it started (`pmfx kill`, then SIGKILL for
   * whatever is left), and removes the folder. Safe to call when no daemon ever ran.
   */
  readonly cleanup: () => void
}

const isAlive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

/** The process group of a pid (field 5 of /proc/<pid>/stat), or undefined when it is gone. */
const groupOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2])
  } catch {
    return undefined
  }
}

/**
 * Live processes whose environment holds exactly `PMFX_HOME=<home>`: the sandbox's daemon and,
 * since they inherit it (from the CLI or the daemon), every app it started and their children.
 * A unique temporary home makes this match nothing outside the sandbox.
 */
export const processesOfHome = (home: string): Array<number> => {
  const marker = `PMFX_HOME=${home}`
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      if (pid === process.pid) return false
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(marker) && isAlive(pid)
      } catch {
        return false
      }
    })
}

const sigkill = (pid: number) => {
  try {
    process.kill(pid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

/**
 * What `pmfx kill` does, without the CLI's start-up: `POST /daemon/kill` over the socket, then wait
 * (as long as the CLI would, 90 s) until the daemon process is gone. False when the daemon did not
 * take the request (no socket, no pid file, no answer): the caller runs `pmfx kill` then, which
 * knows the odd cases (a socket elsewhere, a daemon that does not answer).
 */
const askDaemonToExit = (home: string): boolean => {
  const socket = path.join(home, "pmfx.sock")
  let daemon: number
  try {
    daemon = Number(fs.readFileSync(path.join(home, "daemon.pid"), "utf8").trim())
  } catch {
    return false
  }
  if (!fs.existsSync(socket) || !Number.isInteger(daemon) || daemon <= 0 || !isAlive(daemon)) return false
  const reply = requestSync(socket, "POST", "/daemon/kill")
  if (!reply.ok || reply.status !== 200) return false
  const deadline = Date.now() + 90_000
  while (isAlive(daemon) && Date.now() < deadline) pauseSync(20)
  return true
}

/** Makes sure nothing of a sandbox's home keeps running. */
export const stopEverything = (home: string, runPmfx: (args: ReadonlyArray<string>) => CliResult): void => {
  if (!fs.existsSync(home)) return
  const pidFile = path.join(home, "daemon.pid")
  // The polite way first: the daemon stops its apps and exits (and `kill` never starts a daemon).
  if (!askDaemonToExit(home) && (fs.existsSync(pidFile) || fs.existsSync(path.join(home, "pmfx.sock"))))
    runPmfx(["kill"])
  // Fallback 1: a daemon that did not exit.
  try {
    const daemon = Number(fs.readFileSync(pidFile, "utf8").trim())
    if (Number.isInteger(daemon) && daemon > 0 && processesOfHome(home).includes(daemon)) sigkill(daemon)
  } catch {
    // No pid file: no daemon.
  }
  // Fallback 2: apps (and their children) that outlived it. A group leader takes its group with
  // it; a process in someone else's group (a CLI still running under this test's group) is
  // killed alone, so the test runner's own group is never signalled.
  for (let round = 0; round < 3; round++) {
    const left = processesOfHome(home)
    if (left.length === 0) return
    for (const pid of left) {
      if (groupOf(pid) === pid && pid !== process.pid) {
        try {
          process.kill(-pid, "SIGKILL")
        } catch {
          sigkill(pid)
        }
      } else sigkill(pid)
    }
    pauseSync(50)
  }
}

export const makeSandbox = (): Sandbox => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-cli-"))
  const home = path.join(dir, "home")
  return sandboxOver(dir, home, () => {
    try {
      stopEverything(home, runPmfxIn(dir, home))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
}

/** Runs the CLI synchronously in `dir`, with `userHome` as HOME and `home` as PMFX_HOME. */
const runPmfxIn =
  (dir: string, home: string, userHome = dir) =>
  (args: ReadonlyArray<string>, env: Readonly<Record<string, string>> = {}): CliResult => {
    // From a small helper process: a spawn from the test's own ~400 MB process costs much more (see there).
    const result = spawnSyncSmall({
      file: PMFX_EXECUTABLE,
      args,
      cwd: dir,
      env: envIn(userHome, home, env),
      timeoutMs: 30_000
    })
    return { code: result.status, stdout: result.stdout, stderr: result.stderr }
  }

const envIn = (userHome: string, home: string, env: Readonly<Record<string, string>>) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: userHome,
  PMFX_HOME: home,
  ...env
})

/**
 * A sandbox whose commands run in `dir` (HOME `userHome`) against the daemon of `home`, cleaned
 * up by `cleanup`: makeSandbox's owns both folders; test/cli/sharedSandbox.ts gives each test a
 * folder of its own over one home (and one HOME, the daemon's).
 */
export const sandboxOver = (dir: string, home: string, cleanup: () => void, userHome = dir): Sandbox => ({
  dir,
  home,
  write: (name, content) => {
    const file = path.join(dir, name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, content)
    return file
  },
  pmfx: runPmfxIn(dir, home, userHome),
  pmfxAsync: (args, env = {}) =>
    spawnSmall({
      file: PMFX_EXECUTABLE,
      args,
      cwd: dir,
      env: envIn(userHome, home, env),
      timeoutMs: 30_000
    }).then((result) => {
      if (result.status === null && result.signal === null && result.error !== undefined)
        throw new Error(`pmfx ${args.join(" ")}: ${result.error}`)
      return { code: result.status, stdout: result.stdout, stderr: result.stderr }
    }),
  cleanup
})
