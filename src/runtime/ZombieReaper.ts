/**
 * PID 1's duty in a container (docs/containers.md, docs/decisions.md "Reaping zombies as PID 1"):
 * a process whose parent dies is re-parented to PID 1, and when it exits it stays a zombie until
 * PID 1 waits on it. Node waits only on the children it spawned itself (libuv calls `waitpid(pid)`
 * for each of them on SIGCHLD), and has no API to wait on anything else.
 *
 * So the runtime waits on the others itself, through `waitpid(2)` of the C library called with
 * koffi (a foreign-function interface with prebuilt binaries): on each SIGCHLD, and every few
 * seconds in case signals were merged, it lists its zombie children in /proc and waits on each one
 * that Node did not spawn — never with `waitpid(-1)`, which would take the exit status of an app
 * from libuv, and the supervisor would never learn that the app exited. The pids Node spawned are
 * known by wrapping `ChildProcess.prototype.spawn` (every `spawn`, `execFile` and `fork` goes
 * through it); a pid leaves that set on the child's `exit` event, which libuv emits only after
 * it has waited on the child, so a zombie is never reaped by both.
 */
import { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"

const WNOHANG = 1
/** The periodic sweep behind SIGCHLD (signals arriving together are delivered once). */
const SWEEP_MS = 2_000

type WaitPid = (pid: number, status: Array<number>, options: number) => number

/** `waitpid` of the C library, or why it cannot be called. */
const loadWaitPid = (): WaitPid | string => {
  let koffi: typeof import("koffi")
  try {
    koffi = require("koffi") as typeof import("koffi")
  } catch (error) {
    return `the koffi package cannot be loaded (${(error as Error).message})`
  }
  const arch = os.arch() === "x64" ? "x86_64" : os.arch() === "arm64" ? "aarch64" : os.arch()
  const failures: Array<string> = []
  // glibc (Debian, Ubuntu, node:*-slim), then musl (Alpine).
  for (const name of ["libc.so.6", `libc.musl-${arch}.so.1`]) {
    try {
      return koffi.load(name).func("int waitpid(int pid, _Out_ int *status, int options)") as WaitPid
    } catch (error) {
      failures.push(`${name}: ${(error as Error).message}`)
    }
  }
  return `no C library to call waitpid from (${failures.join("; ")})`
}

/** The pids of this process's children that are zombies now (from /proc). */
const zombieChildren = (): Array<number> => {
  const found: Array<number> = []
  let entries: Array<string>
  try {
    entries = fs.readdirSync("/proc")
  } catch {
    return found
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let stat: string
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "latin1")
    } catch {
      continue
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (fields[0] === "Z" && Number(fields[1]) === process.pid) found.push(Number(entry))
  }
  return found
}

/** The pids Node spawned and has not waited on yet. */
const spawnedByNode = new Set<number>()
let spawnWrapped = false

const wrapSpawn = (): void => {
  if (spawnWrapped) return
  spawnWrapped = true
  const prototype = ChildProcess.prototype as ChildProcess & { spawn: (options: unknown) => unknown }
  const original = prototype.spawn
  prototype.spawn = function (this: ChildProcess, options: unknown) {
    const result = original.call(this, options)
    const pid = this.pid
    if (pid !== undefined) {
      spawnedByNode.add(pid)
      this.once("exit", () => spawnedByNode.delete(pid))
    }
    return result
  }
}

/**
 * Reaps the zombies re-parented to this process for as long as it lives; null once started, or
 * why it cannot (the runtime then warns: orphans stay zombies until the container ends). Called
 * before anything is spawned, so that every child Node spawns is known.
 */
export const startReaper = (): string | null => {
  const waitpid = loadWaitPid()
  if (typeof waitpid === "string") return waitpid
  wrapSpawn()
  let scheduled = false
  const sweep = () => {
    scheduled = false
    for (const pid of zombieChildren()) {
      if (!spawnedByNode.has(pid)) waitpid(pid, [0], WNOHANG)
    }
  }
  const onChild = () => {
    if (scheduled) return
    scheduled = true
    setImmediate(sweep)
  }
  process.on("SIGCHLD", onChild)
  setInterval(sweep, SWEEP_MS).unref()
  sweep()
  return null
}
