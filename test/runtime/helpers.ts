/**
 * Helpers of the `pmfx-runtime` tests: the built runtime run in a sandbox's PMFX_HOME, either as a
 * plain child or as PID 1 of a new PID namespace (`unshare --fork --pid --mount-proc`, util-linux;
 * root here), with its stdout and stderr collected and its exit awaited.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Sandbox } from "../support/cli"

export const RUNTIME_BIN = path.resolve(__dirname, "../../dist/runtime.cjs")

/** Why a new PID namespace cannot be made here (the namespace tests then skip), or null. */
export const pidNamespaceProblem = (): string | null => {
  const probe = spawnSync("unshare", ["--fork", "--pid", "--mount-proc", "true"], { encoding: "utf8", timeout: 10_000 })
  if (probe.error !== undefined) return `unshare cannot run (${probe.error.message}); install util-linux`
  if (probe.status !== 0)
    return `unshare cannot create a PID namespace here (${probe.stderr.trim() || `exit ${probe.status}`}); run the tests as root`
  return null
}

export interface RunningRuntime {
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the exit code (or the signal's name). */
  readonly exited: Promise<number | string>
  /** The runtime's own pid as this machine sees it (inside a namespace it is PID 1). */
  readonly pid: () => number | undefined
}

const childrenOf = (pid: number): Array<number> => {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter((entry) => entry !== "")
      .map(Number)
  } catch {
    return []
  }
}

export const startRuntime = (
  sandbox: Sandbox,
  args: ReadonlyArray<string>,
  options: { readonly pidNamespace?: boolean } = {}
): RunningRuntime => {
  const command =
    options.pidNamespace === true
      ? ["unshare", "--fork", "--pid", "--mount-proc", process.execPath, RUNTIME_BIN, ...args]
      : [process.execPath, RUNTIME_BIN, ...args]
  const child = spawn(command[0]!, command.slice(1), {
    cwd: sandbox.dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: sandbox.dir, PMFX_HOME: sandbox.home, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text))
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text))
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))
  )
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    pid: () =>
      options.pidNamespace === true ? (child.pid === undefined ? undefined : childrenOf(child.pid)[0]) : child.pid
  }
}

/** The state letter and parent of a pid (from /proc), or null when it is gone. */
export const statOf = (pid: number): { readonly state: string; readonly ppid: number } | null => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return { state: fields[0]!, ppid: Number(fields[1]) }
  } catch {
    return null
  }
}

/** Pids of the zombies whose parent is `parent`. */
export const zombiesOf = (parent: number): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const stat = statOf(pid)
      return stat !== null && stat.state === "Z" && stat.ppid === parent
    })

/** Pids of live processes whose command line contains `marker`. */
export const processesWith = (marker: string): Array<number> =>
  fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)
