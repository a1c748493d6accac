/**
 * The life of one row (docs/architecture.md §4): spawn, become online, watch over the process, restart it by the
 * restart policy, and settle as `stopped` or `errored`. It runs as one fiber per running row;
 * stopping the row is interrupting that fiber, whose scope finalizer stops the process group.
 */
import { daemonEnvironmentForApps } from "../daemon/daemonEnvironment"
import { Clock, Deferred, Duration, Effect, Either, Option, Schedule, Scope, SubscriptionRef } from "effect"
import * as fs from "node:fs"
import type { AppDefinition } from "../domain/AppDefinition"
import { instanceFiles } from "../domain/logPaths"
import { readStartTime } from "../monitor/procfs"
import type { EventBus } from "../events/EventBus"
import { pathError } from "./checkAppPaths"
import { decideAfterExit, isUnstableRun } from "./restartPolicy"
import type { RestartReason, Row } from "./Row"
import { hasHealthCheck, initialHealth } from "./Row"
import type { ChildExit } from "./Spawner"
import { openReaders, removePair } from "./StdioPipes"
import { instanceEnvironment } from "./instanceEnvironment"
import { watchForChanges } from "./watchForChanges"
import { type ReadyLineWatch, watchReadyLine } from "./readyLogLine"
import { writePidFile } from "./writePidFile"
import { acquireReleaseLean } from "../shared/acquireReleaseLean"
import { healthLoop } from "./healthLoop"
import { cronRestarts } from "./cronRestarts"
import { killSignalOf } from "../domain/killSignal"
import { awaitRow, setStatus, updateRow } from "./rowState"
import { type AttachPipes, type PipeSlot, type RunningProcess, spawnProcess } from "./spawnProcess"
import type { Adoption, StartError, SupervisorContext } from "./SupervisorContext"

export { awaitRow, setStatus, updateRow } from "./rowState"
export type { Adoption, StartError, SupervisorContext } from "./SupervisorContext"

const readPid = (file: string): number | null => {
  try {
    return Number(fs.readFileSync(file, "utf8").trim())
  } catch {
    return null
  }
}

/** Removes the pid file while it still holds `pid` (a replacement may have written its own). */
const removePidFile = (file: string, pid: number): void => {
  if (readPid(file) === pid) fs.rmSync(file, { force: true })
}

type RunOutcome =
  | { readonly _tag: "StartFailed"; readonly error: StartError }
  | { readonly _tag: "Exited"; readonly exit: ChildExit; readonly uptimeMs: number; readonly pid: number }
  | {
      readonly _tag: "RestartRequested"
      readonly reason: RestartReason
      readonly wasOnline: boolean
      readonly uptimeMs: number
    }

/** How often a pid file that could not be written is tried again. */
const PID_FILE_RETRY = Duration.seconds(2)

/**
 * starting → online (docs/api.md, States): at once when the process is up; once it says it is
 * ready when it tells (`wait_ready`'s 'ready', a cluster worker's listening — or once
 * `listen_timeout` has passed, when PM2 goes on too); and once healthy with a health check. As in
 * PM2, `min_uptime` plays no part here; the restart policy uses it.
 */
const becomeOnline = (row: Row, app: AppDefinition, bus: EventBus, ready: Deferred.Deferred<void> | undefined) =>
  Effect.gen(function* () {
    if (ready !== undefined)
      yield* Deferred.await(ready).pipe(Effect.timeout(Duration.millis(app.listen_timeout)), Effect.ignore)
    if (hasHealthCheck(app)) yield* awaitRow(row, (state) => state.health.status === "healthy")
    yield* updateRow(row, bus, (state) => (state.status === "starting" ? { status: "online" } : {}))
  })

/**
 * Runs one process of the row until it exits or a restart is asked for; closing the scope stops
 * it — unless the host is handing its apps over, when the process and its FIFOs are left running.
 */
const runOnce = (
  row: Row,
  context: SupervisorContext,
  slot: PipeSlot,
  attach: AttachPipes,
  firstSpawn: Deferred.Deferred<void, StartError> | undefined,
  adoption: Adoption | undefined,
  readyLine: ReadyLineWatch
): Effect.Effect<RunOutcome> =>
  // The run's scope, passed where it is used.
  withRunScope((runScope) =>
    Effect.gen(function* () {
      const { bus, home } = context
      const app = row.app.definition
      const before = yield* SubscriptionRef.get(row.state)
      const port = before.portOverride ?? before.port
      const pidFile = instanceFiles(app, row.instance, home).pid_file
      // An adopted process printed its ready line under the previous daemon (its dependents were started then).
      if (adoption === undefined) readyLine.rearm()
      yield* updateRow(row, bus, () => ({
        status: "starting",
        pid: null,
        health: initialHealth(hasHealthCheck(app)),
        readyLine: adoption !== undefined
      }))

      // The output is attached inside the acquisition (uninterruptible): no reader is left unread.
      const acquire: Effect.Effect<RunningProcess, StartError, Scope.Scope> =
        adoption === undefined
          ? spawnProcess(row, context, port, slot, attach)
          : Effect.flatMap(context.spawner.adopt(adoption.pid, adoption.startTime), ({ child, poke }) =>
              Effect.map(attach(adoption.pipes), (streams) => ({
                child,
                pipes: adoption.pipes,
                streams,
                startedAt: adoption.startedAt,
                poke
              }))
            )
      const spawned = yield* acquireReleaseLean(acquire, ({ child }) =>
        Effect.gen(function* () {
          if (row.family === child.family) row.family = undefined
          // Handing over to a successor: the app keeps running, its FIFOs and pid file stay.
          if (context.handingOff()) return
          if (child.exit.exited !== undefined) {
            // Exited on its own: its group's leftovers and its pid file are cleaned up off the
            // respawn's path (docs/decisions.md, "The spawn path, another pass"), in a daemon
            // fiber that runs once this one waits (for the replacement's spawn, say), so deleting
            // the row cannot cancel it. The pid check keeps a reload's or respawn's own pid file.
            yield* Effect.forkDaemon(
              Effect.zipRight(
                // Not when the pid now leads another process (a replacement given the same pid
                // once the pid space wrapped): its group is not this run's leftovers.
                Effect.flatMap(readStartTime(child.pid), (start) =>
                  Option.isSome(start) &&
                  child.family.leaderStart !== undefined &&
                  start.value !== child.family.leaderStart
                    ? Effect.void
                    : context.spawner.afterExit(child)
                ),
                Effect.sync(() => removePidFile(pidFile, child.pid))
              )
            )
            return
          }
          yield* setStatus(row, bus, "stopping")
          // The group, and what left it (setsid, detached children: ProcessFamily).
          // The app's kill_signal first (domain/killSignal.ts), SIGKILL after kill_timeout.
          const signal = killSignalOf(app)
          yield* child.stop !== undefined
            ? child.stop(app.kill_timeout, signal)
            : context.spawner.stop(child, app.kill_timeout, signal)
          // Releases are uninterruptible: the wait itself must be interruptible for the timeout to end it.
          yield* child.exit.await.pipe(Effect.interruptible, Effect.timeout(Duration.seconds(5)), Effect.ignore)
          // A reload's replacement may already have written its own pid here.
          yield* Effect.sync(() => removePidFile(pidFile, child.pid))
        })
      ).pipe(Scope.extend(runScope), Effect.either)
      if (spawned._tag === "Left") {
        if (firstSpawn !== undefined) yield* Deferred.fail(firstSpawn, spawned.left)
        return { _tag: "StartFailed", error: spawned.left } as const
      }
      const { child, pipes, streams, startedAt, poke } = spawned.right
      row.family = child.family
      slot.current = { pipes, streams }
      // An adopted process has no exit event: its pipes ending is the first sign.
      for (const stream of streams) stream.whenEnded(poke)
      const pidWritten = yield* Effect.either(writePidFile(pidFile, child.pid))
      if (pidWritten._tag === "Left") {
        const { code } = pidWritten.left
        // A pid file that cannot be written fails the start it belongs to (closing the scope
        // stops the process); a later respawn, or a full disk, keeps the process running.
        if (firstSpawn !== undefined && code !== "ENOSPC" && code !== "EDQUOT") {
          const error = pathError(app, "pid_file", pidFile, pidWritten.left)
          yield* Deferred.fail(firstSpawn, error)
          return { _tag: "StartFailed", error } as const
        }
        yield* Effect.logWarning(
          `${app.name}: pid file ${pidFile} not written: ${pidWritten.left.reason} (${code}); trying again`
        )
        // Written once there is room (a full disk), for as long as this process runs.
        yield* Effect.forkIn(
          writePidFile(pidFile, child.pid).pipe(Effect.retry(Schedule.spaced(PID_FILE_RETRY)), Effect.ignore),
          runScope
        )
      }
      yield* updateRow(row, bus, () => ({ pid: child.pid, startedAt, pipes: pipes.name, lastError: null }))
      // Saved at once (not when online): a host killed from then on leaves its pid behind. Not
      // awaited: a process that exits at once is restarted without waiting for the disk.
      yield* Effect.forkDaemon(context.spawned())
      // Without a health check or a readiness message the process is online as it is up, so whoever started it sees `online`.
      if (hasHealthCheck(app) || child.ready !== undefined)
        yield* Effect.forkIn(becomeOnline(row, app, bus, child.ready), runScope)
      else yield* becomeOnline(row, app, bus, undefined)
      if (firstSpawn !== undefined) yield* Deferred.succeed(firstSpawn, undefined)

      if (hasHealthCheck(app)) {
        // A check script learns which instance it checks, like the app itself does.
        const env = {
          ...daemonEnvironmentForApps(),
          ...Either.getOrElse(
            instanceEnvironment({ app, instance: row.instance, port, baseEnv: row.app.baseEnv }),
            () => ({})
          )
        } as Record<string, string>
        yield* Effect.forkIn(healthLoop(row, app, env, bus), runScope)
      }
      // One callback on both sources, no race of two fibers (RestartRequests).
      const outcome = yield* row.requests.awaitExitOrRequest(child.exit)
      const state = yield* SubscriptionRef.get(row.state)
      const wasOnline = state.status === "online"
      const uptimeMs = (yield* Clock.currentTimeMillis) - startedAt
      if (outcome._tag === "request")
        return { _tag: "RestartRequested", reason: outcome.reason, wasOnline, uptimeMs } as const
      return { _tag: "Exited", exit: outcome.exit, uptimeMs, pid: child.pid } as const
    })
  )

/**
 * Runs `use` with a fresh scope that closes with its exit, like Effect.scoped without providing
 * the scope: providing it copies the fiber's service context (~2 KB), which a parked fiber keeps.
 */
const withRunScope = <A>(use: (scope: Scope.Scope) => Effect.Effect<A>): Effect.Effect<A> =>
  Effect.flatMap(Scope.make(), (scope) => Effect.onExit(use(scope), (exit) => Scope.close(scope, exit)))

/**
 * Supervises a row until it settles (`stopped` or `errored`) or is interrupted. `firstSpawn` is
 * completed after the first spawn attempt, so whoever started the row learns whether it started.
 */
export const superviseRow = (
  row: Row,
  context: SupervisorContext,
  firstSpawn?: Deferred.Deferred<void, StartError>,
  adoption?: Adoption
): Effect.Effect<void> =>
  // The row's scope, passed where it is used (see withRunScope).
  withRunScope((scope) =>
    Effect.gen(function* () {
      const { bus, logs } = context
      const app = row.app.definition
      const name = app.name
      // A Node callback of the log path: the row's state changes through its own run.
      const readyLine = watchReadyLine(
        app.ready_log_line,
        () => void Effect.runFork(updateRow(row, bus, () => ({ readyLine: true })))
      )
      const instanceLogs = yield* logs
        .openInstance(
          app,
          row.instance,
          (entry) => {
            readyLine.see(entry.message)
            bus.publishUnsafe({ _tag: "LogLine", id: row.id, name, instance: row.instance, entry })
          },
          () => bus.wantsLogLines() || readyLine.watching(),
          context.handingOff
        )
        .pipe(Scope.extend(scope))
      const attach: AttachPipes = (pipes, opened) =>
        Effect.sync(() => opened ?? openReaders(pipes)).pipe(
          Effect.map((readers) => [
            instanceLogs.attach(readers.out, "out", `${pipes.out}.partial`),
            instanceLogs.attach(readers.err, "err", `${pipes.err}.partial`)
          ]),
          Effect.catchAllDefect((defect) =>
            Effect.as(Effect.logWarning(`cannot read the output of ${name}: its lines are not logged`, defect), [])
          )
        )
      const slot: PipeSlot = { current: undefined }
      // The last pair goes with the row's run — unless a successor adopts its process.
      yield* Scope.addFinalizer(
        scope,
        Effect.sync(() => {
          if (slot.current !== undefined && !context.handingOff()) removePair(slot.current.pipes)
        })
      )
      if (app.watch)
        yield* watchForChanges(app, context.home, () => void row.requests.offer("watch")).pipe(Scope.extend(scope))
      // cron_restart: lives as long as the row runs (stop and delete interrupt it with the row).
      if (app.cron_restart !== null) yield* Effect.forkIn(cronRestarts(row, app.cron_restart), scope)

      let pendingFirst = firstSpawn
      let pendingAdoption = adoption
      for (;;) {
        // A row that left the table is never spawned for again (its fiber is being interrupted).
        if (row.removed === true) return
        const outcome = yield* runOnce(row, context, slot, attach, pendingFirst, pendingAdoption, readyLine)
        pendingFirst = undefined
        pendingAdoption = undefined
        if (outcome._tag === "StartFailed") {
          const reason =
            outcome.error._tag === "PROCESS_START_FAILED" ? outcome.error.details.reason : outcome.error.message
          yield* setStatus(row, bus, "errored", { pid: null, lastError: reason })
          return
        }
        if (outcome._tag === "RestartRequested") {
          // A process that fails its health check before ever being online is unstable; any other
          // asked-for restart after min_uptime resets the count, like a stable exit.
          const unstable = outcome.reason === "health" && !outcome.wasOnline
          const state = yield* SubscriptionRef.get(row.state)
          const unstableRestarts = unstable
            ? state.unstableRestarts + 1
            : isUnstableRun(app.min_uptime, outcome.uptimeMs)
              ? state.unstableRestarts
              : 0
          if (unstable && unstableRestarts > app.max_restarts) {
            yield* setStatus(row, bus, "errored", {
              pid: null,
              unstableRestarts,
              lastError: `failed its health check ${unstableRestarts} times before becoming online`
            })
            return
          }
          const next = yield* updateRow(row, bus, (s) => ({
            status: "restarting",
            pid: null,
            restarts: s.restarts + 1,
            unstableRestarts
          }))
          yield* bus.publish({
            _tag: "ProcessRestart",
            id: row.id,
            name,
            instance: row.instance,
            reason: outcome.reason,
            restarts: next.restarts
          })
          continue
        }
        const { exit, uptimeMs, pid } = outcome
        const lastExit = { code: exit.code, signal: exit.signal, at: yield* Clock.currentTimeMillis }
        const abnormal = exit.code !== 0 || exit.signal !== null || exit.unknown === true
        yield* bus.publish({
          _tag: "ProcessExit",
          id: row.id,
          name,
          instance: row.instance,
          pid,
          exit_code: exit.code,
          signal: exit.signal,
          abnormal,
          uptime_ms: uptimeMs
        })
        const state = yield* SubscriptionRef.get(row.state)
        const decision = decideAfterExit(app, { ...exit, uptimeMs }, state.unstableRestarts)
        const exitFields = { exit_code: exit.code, signal: exit.signal }
        if (decision._tag === "Settle") {
          yield* updateRow(
            row,
            bus,
            (s) => ({
              status: decision.status,
              pid: null,
              errors: s.errors + (abnormal ? 1 : 0),
              lastExit,
              unstableRestarts: decision.unstableRestarts,
              lastError: decision.status === "errored" ? `${describeExit(exit)}; ${decision.reason}` : null
            }),
            exitFields
          )
          return
        }
        const next = yield* updateRow(
          row,
          bus,
          (s) => ({
            status: "restarting",
            pid: null,
            errors: s.errors + (abnormal ? 1 : 0),
            lastExit,
            unstableRestarts: decision.unstableRestarts,
            restarts: s.restarts + 1
          }),
          exitFields
        )
        yield* bus.publish({
          _tag: "ProcessRestart",
          id: row.id,
          name,
          instance: row.instance,
          reason: "crash",
          restarts: next.restarts
        })
        if (decision.delayMs > 0) yield* Effect.sleep(Duration.millis(decision.delayMs))
      }
    })
  )

export const describeExit = (exit: ChildExit): string =>
  exit.primaryExited === true
    ? "ended with its cluster primary"
    : exit.unknown === true
      ? "exited (its exit status is unknown: it was adopted from an earlier daemon)"
      : exit.signal !== null
        ? `killed by ${exit.signal}`
        : `exited with code ${exit.code}`
