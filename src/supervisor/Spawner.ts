/**
 * Starts one instance's process (docs/architecture.md §4) — no shell, its own process group, its cwd, its
 * identity and umask, and the merged environment — and stops a process group: SIGTERM, then
 * SIGKILL after `kill_timeout`, until no live member of the group is left (grandchildren too).
 */
import { Clock, Context, Deferred, Duration, Effect, Either, Layer, Option, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomHex } from "../shared/randomHex"
import * as fs from "node:fs"
import type { AppDefinition } from "../domain/AppDefinition"
import { InvalidConfig, ProcessStartFailed } from "../domain/errors"
import { liveGroupMembers, readStartTime, readUptimeTicks } from "../monitor/procfs"
import { parseEnvFile } from "../config/parseEnvFile"
import { type CommandLine, commandLineFor } from "./commandLine"
import { instanceEnvironment } from "./instanceEnvironment"
import { killFamilyLeftovers, makeFamily, type ProcessFamily, RUN_ID_VARIABLE, stopFamily } from "./ProcessFamily"
import { openWriters, type PipePair } from "./StdioPipes"
import { type Identity, resolveIdentity } from "./userIdentity"
import { ExitSignal } from "./ExitSignal"
import { watchAdopted } from "./watchAdopted"

export interface ChildExit {
  readonly code: number | null
  readonly signal: string | null
  /**
   * Set when the process was adopted from an earlier daemon: only a parent learns an exit code,
   * so its exit is seen (by polling) but not why it ended — it counts as abnormal.
   */
  readonly unknown?: true
  /** Set when a cluster worker ended with its primary (which alone learns a worker's exit status). */
  readonly primaryExited?: true
}

export interface SpawnedChild {
  readonly pid: number
  /** Completes when the process has exited (its pipes may still be draining). */
  readonly exit: ExitSignal
  /** Everything this run starts, also what leaves the process group (stopped with it). */
  readonly family: ProcessFamily
  /**
   * Completes when the process says it is ready: its `'ready'` IPC message (`wait_ready`), or a
   * cluster worker's first `listening`. Absent: ready as soon as it runs.
   */
  readonly ready?: Deferred.Deferred<void>
  /** How this process is stopped, when not by signalling its process group (stopFamily). */
  readonly stop?: (killTimeoutMs: number, signal: NodeJS.Signals) => Effect.Effect<void>
  /**
   * The clock's time as `spawn()` returned: where its uptime starts. Taken there, not when the
   * supervisor's fiber resumes, which in a burst of spawns can be after the others' spawns.
   * Absent (an adopted process, a cluster worker): the supervisor takes its own time.
   */
  readonly spawnedAt?: number
}

export interface SpawnRequest {
  readonly app: AppDefinition
  readonly instance: number
  readonly port: number | null
  /** The environment of whoever started the app (docs/architecture.md §4: lowest precedence). */
  readonly baseEnv: Readonly<Record<string, string>>
}

export const startFailed = (app: AppDefinition, instance: number, reason: string, suggestion: string) =>
  new ProcessStartFailed({
    message: `${app.name}${app.instances > 1 ? ` instance ${instance}` : ""} could not start: ${reason}`,
    details: { process_id: app.name, reason, suggestion }
  })

/** The environment of one instance: caller (less filter_env) < env_file < env < PORT and the instance ids. */
export const environmentFor = (request: SpawnRequest, identityEnv: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const { app, instance } = request
    let fileEnv: Record<string, string> = {}
    if (app.env_file !== null) {
      const text = yield* Effect.try(() => fs.readFileSync(app.env_file!, "utf8")).pipe(
        Effect.mapError(() =>
          startFailed(app, instance, `env_file ${app.env_file} cannot be read`, "create the file or fix env_file")
        )
      )
      const parsed = parseEnvFile(text)
      if (Either.isLeft(parsed)) {
        return yield* startFailed(
          app,
          instance,
          `env_file ${app.env_file}:${parsed.left.line}: ${parsed.left.message}`,
          "write one KEY=value per line"
        )
      }
      fileEnv = parsed.right
    }
    const env = instanceEnvironment({
      app,
      instance,
      port: request.port,
      baseEnv: request.baseEnv,
      identityEnv,
      fileEnv
    })
    if (Either.isLeft(env))
      return yield* startFailed(
        app,
        instance,
        env.left,
        `set ${app.increment_var} to a whole number in env, or remove increment_var`
      )
    return env.right
  })

/** What every spawn of an instance needs, checked: its identity, environment, cwd and command line. */
export const prepareLaunch = (request: SpawnRequest) =>
  Effect.gen(function* () {
    const { app, instance } = request
    const identity = yield* resolveIdentity(app.user, app.group)
    if (identity._tag === "Problem") {
      return yield* InvalidConfig.fromProblems([
        {
          field: identity.field,
          value: app[identity.field],
          message: identity.reason,
          suggestion: "remove user/group, or run the daemon as root"
        }
      ])
    }
    const env: Record<string, string> = yield* environmentFor(request, identity.identity.env)
    if (!fs.existsSync(app.cwd) || !fs.statSync(app.cwd).isDirectory()) {
      return yield* startFailed(app, instance, `cwd ${app.cwd} is not a folder`, "create it or fix `cwd`")
    }
    const resolved = commandLineFor(app, env.PATH)
    if (resolved._tag === "Problem")
      return yield* startFailed(app, instance, resolved.problem.reason, resolved.problem.suggestion)
    return { env, identity: identity.identity, command: resolved.command }
  })

/** Sends `message` over a child's IPC channel, if it is still open (false otherwise). */
const sendMessage = (child: ChildProcess, message: string): boolean => {
  if (!child.connected) return false
  try {
    return child.send(message, () => {})
  } catch {
    return false
  }
}

/** What one `spawn()` of an instance is given. */
interface ChildLaunch {
  readonly app: AppDefinition
  readonly instance: number
  readonly command: CommandLine
  readonly env: Record<string, string>
  readonly identity: Identity
  readonly pipes: PipePair
  /** An IPC channel (`wait_ready`, `shutdown_with_message`). */
  readonly ipc: boolean
}

/** A spawned child and the clock's time as `spawn()` returned. */
interface Spawned {
  readonly child: ChildProcess
  readonly spawnedAt: number
}

/** Spawns the process, its stdout and stderr into the FIFO pair; succeeds once it runs. */
const spawnChild = (
  launch: ChildLaunch,
  exit: ExitSignal,
  ready: Deferred.Deferred<void> | undefined,
  clock: Clock.Clock
): Effect.Effect<Spawned, ProcessStartFailed> =>
  Effect.async<Spawned, ProcessStartFailed>((resume) => {
    const { app, instance, command, identity, ipc } = launch
    let writers: { readonly out: number; readonly err: number }
    try {
      writers = openWriters(launch.pipes)
    } catch (error) {
      resume(
        Effect.fail(
          startFailed(
            app,
            instance,
            `cannot open its stdout/stderr pipes: ${String(error)}`,
            "check that PMFX_HOME is writable and not full"
          )
        )
      )
      return
    }
    const previousUmask = app.umask === null ? undefined : process.umask(parseInt(app.umask, 8))
    let child: ChildProcess
    try {
      // detached: its own process group, so stopping it reaches every process it started.
      child = spawn(command.file, [...command.args], {
        cwd: app.cwd,
        env: launch.env,
        detached: true,
        // The FIFOs read-write (StdioPipes): the app never sees its reader vanish with the daemon.
        stdio: ipc ? ["ignore", writers.out, writers.err, "ipc"] : ["ignore", writers.out, writers.err],
        uid: identity.uid,
        gid: identity.gid
      })
    } catch (error) {
      resume(Effect.fail(startFailed(app, instance, String(error), "check the script and its permissions")))
      return
    } finally {
      if (previousUmask !== undefined) process.umask(previousUmask)
      fs.closeSync(writers.out)
      fs.closeSync(writers.err)
    }
    const spawnedAt = clock.unsafeCurrentTimeMillis()
    watchChild(child, exit, ready, ipc)
    resumeOnStart({ child, spawnedAt }, app, instance, resume)
  })

/**
 * The child's listeners for its lifetime. Made here, not where the spawn is prepared: a closure
 * keeps the whole scope it was made in — there, the instance's merged environment (~2 KB per
 * running process, docs/benchmarks.md "The spawn path, another pass").
 */
const watchChild = (
  child: ChildProcess,
  exit: ExitSignal,
  ready: Deferred.Deferred<void> | undefined,
  ipc: boolean
): void => {
  child.once("exit", (code, signal) => void exit.complete({ code, signal }))
  if (ipc) {
    child.on("message", (message: unknown) => {
      if (message === "ready" && ready !== undefined) Deferred.unsafeDone(ready, Effect.void)
    })
  }
  // A running child's error (a message or a signal it could not be sent): its exit, if any, follows.
  child.on("error", ignoreError)
}

/**
 * Resumes the spawn once the child runs, or with why it could not start. In a function of its own,
 * and let go of once the child runs: `resume` keeps the whole spawn (its arguments, the
 * environment) reachable.
 */
const resumeOnStart = (
  spawned: Spawned,
  app: AppDefinition,
  instance: number,
  resume: (effect: Effect.Effect<Spawned, ProcessStartFailed>) => void
): void => {
  const { child } = spawned
  const failedToStart = (error: NodeJS.ErrnoException): void => {
    // An error of a child that has a pid is not a failed start: its `spawn` event follows.
    if (child.pid !== undefined) return
    child.removeListener("spawn", started)
    resume(
      Effect.fail(
        startFailed(
          app,
          instance,
          `${error.code ?? "error"}: ${error.message}`,
          "check the script, its permissions and its interpreter"
        )
      )
    )
  }
  const started = (): void => {
    child.removeListener("error", failedToStart)
    resume(Effect.succeed(spawned))
  }
  child.once("error", failedToStart)
  child.once("spawn", started)
}

/** An error of a running child (a signal it could not be sent): its exit, if any, follows. */
const ignoreError = (): void => {}

export const spawnInstance = (
  request: SpawnRequest,
  pipes: PipePair
): Effect.Effect<SpawnedChild, ProcessStartFailed | InvalidConfig> =>
  Effect.gen(function* () {
    const { app, instance } = request
    const prepared = yield* prepareLaunch(request)
    const { env, command, identity } = prepared
    // An IPC channel only when the app talks over one (`process.send('ready')`, the 'shutdown' message).
    const ipc = app.wait_ready || app.shutdown_with_message
    const ready = ipc && app.wait_ready ? yield* Deferred.make<void>() : undefined
    const exit = new ExitSignal()
    // The run's marker: inherited by every process it starts, found again at stop (ProcessFamily).
    const runId = randomHex(12)
    env[RUN_ID_VARIABLE] = runId
    const bornAfter = yield* readUptimeTicks()

    // The time is taken as the child exists: a process table read after this moment shows it.
    const { child, spawnedAt } = yield* spawnChild(
      { app, instance, command, env, identity, pipes, ipc },
      exit,
      ready,
      yield* Effect.clock
    )
    const leaderStart = Option.getOrUndefined(yield* readStartTime(child.pid!))
    const family = makeFamily(child.pid!, runId, bornAfter, leaderStart, spawnedAt)
    return {
      pid: child.pid!,
      exit,
      family,
      spawnedAt,
      ...(ready === undefined ? {} : { ready }),
      ...(app.shutdown_with_message
        ? {
            stop: (killTimeoutMs: number, signal: NodeJS.Signals) =>
              stopWithMessage(() => sendMessage(child, "shutdown"), exit, family, killTimeoutMs, signal)
          }
        : {})
    }
  })

/**
 * PM2's `shutdown_with_message`: the `'shutdown'` message instead of a signal, then whatever is
 * left is killed after `kill_timeout`. Without a channel (an adopted process) it gets `signal` (kill_signal).
 */
export const stopWithMessage = (
  sendShutdown: () => boolean,
  exit: ExitSignal,
  family: ProcessFamily,
  killTimeoutMs: number,
  signal: NodeJS.Signals
): Effect.Effect<void> =>
  Effect.gen(function* () {
    if (!sendShutdown()) return yield* stopFamily(family, killTimeoutMs, signal)
    yield* exit.await.pipe(Effect.interruptible, Effect.timeout(Duration.millis(killTimeoutMs)), Effect.ignore)
    yield* stopFamily(family, 0, "SIGKILL")
  }).pipe(Effect.uninterruptible)

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal)
  } catch {
    // The group is already gone.
  }
}

/**
 * Waits until the group has no live member, up to `timeoutMs`; true when it emptied. A plain
 * deadline loop rather than `Effect.timeout`, because it runs inside uninterruptible stops, where
 * a timeout could not interrupt the wait.
 */
const awaitGroupGone = (pgid: number, timeoutMs: number): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
    for (;;) {
      if ((yield* liveGroupMembers(pgid)).length === 0) return true
      if ((yield* Clock.currentTimeMillis) >= deadline) return false
      yield* Effect.sleep(Duration.millis(20))
    }
  })

/**
 * Stops a whole process group: `first` (the app's kill_signal), then SIGKILL to whatever is left
 * after `killTimeoutMs`. Uninterruptible, so an interrupted stop still finishes the job.
 */
export const stopGroup = (
  pgid: number,
  killTimeoutMs: number,
  first: NodeJS.Signals = "SIGTERM"
): Effect.Effect<void> =>
  Effect.gen(function* () {
    signalGroup(pgid, first)
    if (yield* awaitGroupGone(pgid, killTimeoutMs)) return
    signalGroup(pgid, "SIGKILL")
    yield* awaitGroupGone(pgid, 5_000)
  }).pipe(Effect.uninterruptible)

/** Kills what is left of a group whose leader has exited (leftovers of a dead app). */
export const killLeftovers = (pgid: number): Effect.Effect<void> =>
  Effect.gen(function* () {
    if ((yield* liveGroupMembers(pgid)).length === 0) return
    signalGroup(pgid, "SIGKILL")
    yield* awaitGroupGone(pgid, 5_000)
  }).pipe(Effect.uninterruptible)

/** How long after a crash its escaped descendants are swept (ProcessFamily). */
const CRASH_SWEEP_DELAY = Duration.seconds(1)

/**
 * How the supervisor starts, stops and takes over processes (docs/architecture.md §4). The default
 * is the real one above; a test may provide another (test/support/testSpawner.ts drives the
 * restart policy on a TestClock without real processes).
 */
export class Spawner extends Context.Tag("pmfx/Spawner")<
  Spawner,
  {
    /** Starts one process of the request, its stdout and stderr into `pipes`. */
    readonly spawn: (
      request: SpawnRequest,
      pipes: PipePair
    ) => Effect.Effect<SpawnedChild, ProcessStartFailed | InvalidConfig>
    /** Stops a running process and what it started (when it has no `stop` of its own): `signal`, SIGKILL after `killTimeoutMs`. */
    readonly stop: (child: SpawnedChild, killTimeoutMs: number, signal: NodeJS.Signals) => Effect.Effect<void>
    /** Cleans up after a process that exited on its own: its group's leftovers, then (later) its escapees. */
    readonly afterExit: (child: SpawnedChild) => Effect.Effect<void>
    /** Watches a live process of an earlier daemon (see {@link watchAdopted}). */
    readonly adopt: (
      pid: number,
      startTime: number
    ) => Effect.Effect<{ readonly child: SpawnedChild; readonly poke: () => void }, never, Scope.Scope>
  }
>() {
  /** Real processes: no shell, own process group, stopped by group and family. */
  static readonly Default = Layer.succeed(Spawner, {
    spawn: spawnInstance,
    stop: (child, killTimeoutMs, signal) => stopFamily(child.family, killTimeoutMs, signal),
    afterExit: (child) =>
      Effect.zipRight(
        killLeftovers(child.pid),
        // Escapees of a crashed run are swept a moment later, off the restart's path: the
        // sweep reads all of /proc (synchronously), and a crash's replacement should not
        // wait for it. A daemon fiber, so deleting the row cannot cancel the sweep.
        Effect.asVoid(
          Effect.forkDaemon(Effect.zipRight(Effect.sleep(CRASH_SWEEP_DELAY), killFamilyLeftovers(child.family)))
        )
      ),
    adopt: watchAdopted
  })
}
