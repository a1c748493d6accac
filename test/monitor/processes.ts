/**
 * Helpers of the monitor tests: real child processes in their own process groups, killed (the whole
 * group) when the test's scope closes, and polling with a deadline instead of fixed sleeps.
 */
import { Clock, Effect, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const killGroup = (pgid: number): void => {
  try {
    process.kill(-pgid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

/**
 * Spawns `command args` detached (its own process group), with no stdio. The scope's finalizer kills
 * the group and waits until Node has reaped the leader.
 */
export const spawnGroup = (
  command: string,
  args: ReadonlyArray<string>
): Effect.Effect<ChildProcess, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = spawn(command, [...args], { detached: true, stdio: "ignore" })
      // A failed spawn shows as a missing pid (see pidOf), not as an uncaught error event.
      child.on("error", () => {})
      return child
    }),
    (child) =>
      Effect.async<void>((resume) => {
        if (child.pid !== undefined) killGroup(child.pid)
        if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) resume(Effect.void)
        else child.once("exit", () => resume(Effect.void))
      })
  )

/** The pid of a spawned child (a failed spawn has none). */
export const pidOf = (child: ChildProcess): number => {
  if (child.pid === undefined) throw new Error("the child process did not start")
  return child.pid
}

/** `node -e code` in its own group. */
export const spawnNode = (code: string): Effect.Effect<ChildProcess, never, Scope.Scope> =>
  spawnGroup(process.execPath, ["-e", code])

/**
 * `sh -c` running `node -e code` as a grandchild. The trailing `exit` keeps the shell from
 * exec-ing node in its own place, so the shell stays the leader (as with `npm start`).
 */
export const spawnNodeUnderShell = (code: string): Effect.Effect<ChildProcess, never, Scope.Scope> =>
  spawnGroup("sh", ["-c", `"$0" -e "$1"; exit $?`, process.execPath, code])

/** A node program that allocates and touches `megabytes` MB, then holds them. */
export const holdMemory = (megabytes: number): string =>
  `const held = Buffer.alloc(${megabytes} * 1024 * 1024, 1); setInterval(() => { held[0]++ }, 1000)`

/** A node program that keeps one core busy. */
export const spinCpu = "for (;;) {}"

/**
 * Runs `effect` until `accept` holds for its result (every 50 ms), failing after `timeoutMs` with the
 * last result in the message. Needs the live clock (`it.live`, `it.scopedLive`).
 */
export const eventually = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  accept: (value: A) => boolean,
  description: string,
  timeoutMs = 45_000
): Effect.Effect<A, E | Error, R> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
    for (;;) {
      const value = yield* effect
      if (accept(value)) return value
      if ((yield* Clock.currentTimeMillis) > deadline) {
        return yield* Effect.fail(new Error(`timed out waiting for ${description}; last value: ${show(value)}`))
      }
      yield* Effect.sleep("50 millis")
    }
  })

const show = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) => (inner instanceof Map ? Object.fromEntries(inner) : inner))

/** A temporary folder, removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-monitor-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Writes an executable `sh` script into `dir`; returns its absolute path. */
export const writeScript = (dir: string, name: string, body: string): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
  return file
}
