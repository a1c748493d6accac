/**
 * Cluster mode on the daemon's side (docs/decisions.md, "Cluster mode: one primary per app, driven
 * over IPC"): each cluster app has one primary process (src/cluster/primary.ts) while at least one
 * of its rows runs a worker. A row's run asks it for a worker with the run's own FIFO pair and
 * environment, and gets back what any spawn gives (pid, exit, family) plus `ready` (the worker
 * listens, or sent `'ready'` with `wait_ready`) and its own `stop` (its kill_signal, SIGINT by default, or the `'shutdown'`
 * message, then SIGKILL after `kill_timeout`) — so the Supervisor's restart policy, logs and
 * metrics treat workers like any process.
 *
 * The primary runs detached (its own process group, which its workers share). When it dies, every
 * worker's run ends with it (their rows restart under the restart policy, and the first respawn
 * starts a new primary); when the last worker's run ends, the primary is stopped.
 */
import { Clock, Deferred, Duration, Effect, Option, Schema, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomHex } from "../shared/randomHex"
import * as fs from "node:fs"
import * as path from "node:path"
import { isNodeInterpreter } from "../domain/nodeProgram"
import { makeKeyedLocks } from "../supervisor/keyedLocks"
import type { AppDefinition } from "../domain/AppDefinition"
import type { InvalidConfig, ProcessStartFailed } from "../domain/errors"
import { readStartTime, readUptimeTicks } from "../monitor/procfs"
import { makeFamily, RUN_ID_VARIABLE, stopFamily } from "../supervisor/ProcessFamily"
import {
  prepareLaunch,
  type SpawnedChild,
  type SpawnRequest,
  startFailed,
  stopGroup,
  stopWithMessage
} from "../supervisor/Spawner"
import { ExitSignal } from "../supervisor/ExitSignal"
import type { PipePair } from "../supervisor/StdioPipes"
import { type DaemonToPrimary, type PrimarySetup, PrimaryToDaemon } from "./ClusterProtocol"

/** How long a primary or a worker may take to be spawned before the start fails. */
const SPAWN_TIMEOUT = Duration.seconds(15)
/** How long a primary without workers gets between SIGTERM and SIGKILL. */
const PRIMARY_KILL_TIMEOUT_MS = 3_000

interface WorkerRecord {
  readonly forked: Deferred.Deferred<number, string>
  readonly exit: ExitSignal
  readonly ready: Deferred.Deferred<void>
  readonly waitReady: boolean
}

interface Primary {
  readonly pid: number
  readonly child: ChildProcess
  readonly started: Deferred.Deferred<void, string>
  readonly workers: Map<string, WorkerRecord>
  /** Runs that hold a worker of it (or are asking for one). */
  users: number
  dead: boolean
  /** The last error the primary reported before it died. */
  lastError: string | null
}

/** dist/cluster-primary.cjs: beside the running bundle, or built from these sources (tests run them). */
const primaryScript = (): string => {
  const candidates = [
    path.join(__dirname, "cluster-primary.cjs"),
    path.resolve(__dirname, "../../dist/cluster-primary.cjs")
  ]
  return candidates.find((file) => fs.existsSync(file)) ?? candidates[0]!
}

const decodeMessage = Schema.decodeUnknownOption(PrimaryToDaemon)

const send = (primary: Primary, message: DaemonToPrimary): boolean => {
  if (primary.dead || !primary.child.connected) return false
  try {
    return primary.child.send(message, () => {})
  } catch {
    return false
  }
}

export interface ClusterHost {
  /** A worker of the app's primary (started first if none runs), held for the life of the scope. */
  readonly spawnWorker: (
    request: SpawnRequest,
    pipes: PipePair
  ) => Effect.Effect<SpawnedChild, ProcessStartFailed | InvalidConfig, Scope.Scope>
}

export const makeClusterHost = (handingOff: () => boolean): ClusterHost => {
  const primaries = new Map<string, Primary>()
  const withLock = makeKeyedLocks()

  const onMessage = (primary: Primary, raw: unknown): void => {
    const decoded = decodeMessage(raw)
    if (Option.isNone(decoded)) return
    const message = decoded.value
    if (message.type === "started") return void Deferred.unsafeDone(primary.started, Effect.void)
    if (message.type === "error") {
      primary.lastError = message.reason
      return
    }
    const worker = primary.workers.get(message.key)
    if (worker === undefined) return
    switch (message.type) {
      case "forked":
        return void Deferred.unsafeDone(worker.forked, Effect.succeed(message.pid))
      case "fork-failed":
        primary.workers.delete(message.key)
        return void Deferred.unsafeDone(worker.forked, Effect.fail(message.reason))
      case "listening":
        if (!worker.waitReady) Deferred.unsafeDone(worker.ready, Effect.void)
        return
      case "ready":
        if (worker.waitReady) Deferred.unsafeDone(worker.ready, Effect.void)
        return
      case "exit":
        primary.workers.delete(message.key)
        return void worker.exit.complete({ code: message.code, signal: message.signal })
    }
  }

  const onPrimaryExit = (name: string, primary: Primary, code: number | null, signal: string | null): void => {
    primary.dead = true
    if (primaries.get(name) === primary) primaries.delete(name)
    const how = signal !== null ? `killed by ${signal}` : `exited with code ${code}`
    Deferred.unsafeDone(
      primary.started,
      Effect.fail(`the cluster primary ${how}${primary.lastError === null ? "" : `: ${primary.lastError}`}`)
    )
    // Its workers leave with it (they exit when their channel closes; anything left is killed).
    try {
      process.kill(-primary.pid, "SIGKILL")
    } catch {
      // The group is already empty.
    }
    for (const worker of primary.workers.values()) {
      Deferred.unsafeDone(worker.forked, Effect.fail(`the cluster primary ${how}`))
      worker.exit.complete({ code: null, signal: null, primaryExited: true })
    }
    primary.workers.clear()
  }

  const startPrimary = (
    app: AppDefinition,
    node: string,
    execArgv: ReadonlyArray<string>,
    env: Readonly<Record<string, string>>,
    identity: { readonly uid?: number | undefined; readonly gid?: number | undefined }
  ) =>
    Effect.gen(function* () {
      const setup: PrimarySetup = { name: app.name, exec: app.script, args: app.args, execArgv }
      const started = yield* Deferred.make<void, string>()
      const child = yield* Effect.try({
        try: () => {
          const previousUmask = app.umask === null ? undefined : process.umask(parseInt(app.umask, 8))
          try {
            // Detached: its own process group, which its workers share; stopped as one.
            return spawn(node, [primaryScript(), JSON.stringify(setup)], {
              cwd: app.cwd,
              env: { ...env, [RUN_ID_VARIABLE]: randomHex(12) },
              detached: true,
              stdio: ["ignore", "ignore", "ignore", "ipc"],
              uid: identity.uid,
              gid: identity.gid
            })
          } finally {
            if (previousUmask !== undefined) process.umask(previousUmask)
          }
        },
        catch: (error) =>
          startFailed(
            app,
            0,
            `the cluster primary could not be spawned: ${String(error)}`,
            "check the interpreter and its permissions"
          )
      })
      const spawned = yield* Effect.async<number, ProcessStartFailed>((resume) => {
        child.once("spawn", () => resume(Effect.succeed(child.pid!)))
        child.once("error", (error: NodeJS.ErrnoException) => {
          if (child.pid === undefined)
            resume(
              Effect.fail(
                startFailed(
                  app,
                  0,
                  `the cluster primary could not be spawned: ${error.message}`,
                  "check the interpreter and its permissions"
                )
              )
            )
        })
      })
      const primary: Primary = {
        pid: spawned,
        child,
        started,
        workers: new Map(),
        users: 0,
        dead: false,
        lastError: null
      }
      child.on("message", (raw) => onMessage(primary, raw))
      child.on("error", () => {
        // A send to a primary that is exiting: its exit follows.
      })
      child.once("exit", (code, signal) => onPrimaryExit(app.name, primary, code, signal))
      // Interruptible: this runs while a resource is acquired, where a timeout could not end the wait.
      const ok = yield* Deferred.await(started).pipe(Effect.interruptible, Effect.timeout(SPAWN_TIMEOUT), Effect.either)
      if (ok._tag === "Left") {
        yield* stopGroup(primary.pid, PRIMARY_KILL_TIMEOUT_MS)
        const reason = typeof ok.left === "string" ? ok.left : "the cluster primary did not start in time"
        return yield* startFailed(
          app,
          0,
          reason,
          "check that the interpreter is Node (cluster mode runs Node scripts only)"
        )
      }
      return primary
    })

  /** The app's primary, started if none runs; the scope's end lets go of it (the last one stops it). */
  const acquirePrimary = (
    app: AppDefinition,
    node: string,
    execArgv: ReadonlyArray<string>,
    env: Readonly<Record<string, string>>,
    identity: { readonly uid?: number | undefined; readonly gid?: number | undefined }
  ) =>
    Effect.acquireRelease(
      withLock(
        app.name,
        Effect.gen(function* () {
          let primary = primaries.get(app.name)
          if (primary === undefined || primary.dead) {
            primary = yield* startPrimary(app, node, execArgv, env, identity)
            primaries.set(app.name, primary)
          }
          primary.users++
          return primary
        })
      ),
      (primary) =>
        withLock(
          app.name,
          Effect.gen(function* () {
            primary.users--
            // Handing over to a successor: the primary keeps serving (docs/decisions.md).
            if (primary.users > 0 || primary.dead || handingOff()) return
            if (primaries.get(app.name) === primary) primaries.delete(app.name)
            yield* stopGroup(primary.pid, PRIMARY_KILL_TIMEOUT_MS)
          })
        )
    )

  const spawnWorker = (request: SpawnRequest, pipes: PipePair) =>
    Effect.gen(function* () {
      const { app, instance } = request
      const prepared = yield* prepareLaunch(request)
      // The interpreter of the app's command line (a Node; the daemon's own for a .js file), and the
      // flags it puts before the script (node_args): the workers' execArgv.
      const { command } = prepared
      const at = command.args.indexOf(app.script)
      // Only a Node interpreter runs the primary: a script without an extension (`./bin/www`,
      // whose `#!/usr/bin/env node` the command line may follow) runs on the daemon's Node.
      const viaInterpreter = command.file !== app.script && at >= 0 && isNodeInterpreter(command.file)
      const node = viaInterpreter ? command.file : process.execPath
      const execArgv = viaInterpreter ? command.args.slice(0, at) : []
      const primary = yield* acquirePrimary(app, node, execArgv, prepared.env, prepared.identity)
      const key = `${instance}-${randomHex(6)}`
      const worker: WorkerRecord = {
        forked: yield* Deferred.make<number, string>(),
        exit: new ExitSignal(),
        ready: yield* Deferred.make<void>(),
        waitReady: app.wait_ready
      }
      primary.workers.set(key, worker)
      // The run's marker, the worker's own (ProcessFamily).
      const runId = randomHex(12)
      const bornAfter = yield* readUptimeTicks()
      if (
        !send(primary, {
          type: "fork",
          key,
          out: pipes.out,
          err: pipes.err,
          env: { ...prepared.env, [RUN_ID_VARIABLE]: runId }
        })
      ) {
        primary.workers.delete(key)
        return yield* startFailed(app, instance, "the cluster primary is gone", "start the app again")
      }
      const forked = yield* Deferred.await(worker.forked).pipe(
        Effect.interruptible,
        Effect.timeout(SPAWN_TIMEOUT),
        Effect.either
      )
      if (forked._tag === "Left") {
        primary.workers.delete(key)
        const reason =
          typeof forked.left === "string" ? forked.left : "the cluster primary did not fork the worker in time"
        return yield* startFailed(
          app,
          instance,
          `cannot fork a cluster worker: ${reason}`,
          `check \`pmfx logs ${app.name}\``
        )
      }
      const pid = forked.right
      const spawnedAt = yield* Clock.currentTimeMillis
      const family = makeFamily(pid, runId, bornAfter, Option.getOrUndefined(yield* readStartTime(pid)), spawnedAt)
      // `signal`: the app's kill_signal, SIGINT by default for a worker as in PM2 (domain/killSignal.ts).
      const stop = (killTimeoutMs: number, signal: NodeJS.Signals): Effect.Effect<void> =>
        app.shutdown_with_message
          ? stopWithMessage(
              () => send(primary, { type: "send", key, message: "shutdown" }),
              worker.exit,
              family,
              killTimeoutMs,
              signal
            )
          : stopFamily(family, killTimeoutMs, signal)
      return { pid, exit: worker.exit, family, ready: worker.ready, stop } satisfies SpawnedChild
    })

  return { spawnWorker }
}
