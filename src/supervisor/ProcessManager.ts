/**
 * The process table and every operation on it (docs/architecture.md §4): create apps from definitions, start,
 * stop, restart, reload, delete, list, get and wait until ready — each addressed by numeric id,
 * app name, namespace or `all`. Works in any program: a test or an embedding app builds it from
 * layers; the daemon is just one host of it.
 */
import { Clock, Deferred, Duration, Effect, Either, Fiber, Option, Queue, Stream, SubscriptionRef } from "effect"
import { isDeepStrictEqual } from "node:util"
import { makeClusterHost } from "../cluster/ClusterHost"
import { makeKeyedLocks } from "./keyedLocks"
import { closestKey } from "../config/closestKey"
import { Paths } from "../daemon/Paths"
import type { AppDefinition } from "../domain/AppDefinition"
import { nextRunOf } from "../domain/cronSchedule"
import { formatUptime } from "../domain/Duration"
import {
  type InsufficientResources,
  InvalidConfig,
  PortInUse,
  ProcessAlreadyExists,
  ProcessAlreadyRunning,
  ProcessNotFound,
  ProcessStartFailed,
  ReadyTimeout
} from "../domain/errors"
import { instanceFiles } from "../domain/logPaths"
import { parsePort } from "../domain/Port"
import type { ProcessDetail } from "../domain/ProcessDetail"
import { isRunningStatus } from "../domain/ProcessStatus"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { EventBus } from "../events/EventBus"
import { compileLogQuery, DEFAULT_LINES, entryMatches, type LogQuery } from "../logs/LogQuery"
import { LogStore } from "../logs/LogStore"
import { readMemoryDetail } from "../monitor/memoryDetail"
import type { ProcessMetrics } from "../domain/ProcessMetrics"
import { MetricsSampler } from "../monitor/MetricsSampler"
import { readStartTime } from "../monitor/procfs"
import type { EngineSnapshot, RowSnapshot } from "./EngineSnapshot"
import { dependencyOrder, stopLevels } from "./dependencyOrder"
import { awaitDependency, dependencyProblem, waitingText } from "./dependencyConditions"
import { EngineOptions } from "./EngineOptions"
import { assignPorts } from "./PortAllocator"
import { isPortFree } from "./portProbe"
import type { AppRecord, RestartReason, Row, RowState } from "./Row"
import { refreshFromSample } from "./ProcessFamily"
import { hasHealthCheck, initialHealth, initialRowState } from "./Row"
import { checkAppPaths, checkInstancePaths } from "./checkAppPaths"
import { StdioPipes } from "./StdioPipes"
import { type ScaleCount, type ScaleResult, scaleApp, type ScaleTable } from "./scaleApp"
import { instanceEnvironmentOf } from "./instanceEnv"
import type { SignalSpec } from "./signals"
import { type Adoption, awaitRow, type StartError, superviseRow, type SupervisorContext, updateRow } from "./Supervisor"
import { definitionSource, lastExitOf, listedPort } from "./detailExtras"

const HISTORY_LENGTH = 60

export interface RuntimePortOption {
  /** A port or range for this run only (`restart`/`reload --port`); the definition keeps its own. */
  readonly port?: string | undefined
}

/** How `restart`/`reload` run a row: a one-time port, and (`--update-env`) a new starting environment. */
export interface RunOptions extends RuntimePortOption {
  /** Replaces the app's starting environment (the caller's, PM2's `--update-env`); kept without it. */
  readonly baseEnv?: Readonly<Record<string, string>> | undefined
  /** Each row's own port under a new definition (`redefine`), by position in the app's rows. */
  readonly basePorts?: ReadonlyArray<number | null>
}

export interface RedefineOptions {
  /** The starting environment to keep from now on (`update_env`); the app keeps its own without it. */
  readonly baseEnv?: Readonly<Record<string, string>> | undefined
  /** restart: all rows at once; reload: one at a time (one instance: restarted); keep: only stored, for an app with nothing running. */
  readonly run: "restart" | "reload" | "keep"
}

/** One app as `ProcessManager.app` shows it. */
export interface AppView {
  readonly definition: AppDefinition
  readonly baseEnv: Readonly<Record<string, string>>
  readonly rows: ReadonlyArray<ProcessSummary>
}

export interface RedefineResult {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** A reload of an app that cannot reload (one instance, or a cluster whose program changed) restarted it. */
  readonly restartedInstead: boolean
}

/** Settings a cluster primary is started with: a change means a new primary (ClusterHost). */
const PRIMARY_SETTINGS = ["script", "args", "interpreter", "interpreter_args", "source_map_support", "cwd", "user", "group", "umask", "exec_mode"] as const

export type CreateError = ProcessAlreadyExists | PortInUse | InsufficientResources | InvalidConfig | StartError

export interface ReloadResult {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** Apps with one instance are restarted, not reloaded (nothing could keep serving). */
  readonly restartedInstead: ReadonlyArray<string>
}

const isReady = (row: Row, state: RowState) =>
  state.status === "online" && (!hasHealthCheck(row.app.definition) || state.health.status === "healthy")

export class ProcessManager extends Effect.Service<ProcessManager>()("pmfx/ProcessManager", {
  scoped: Effect.gen(function* () {
    const paths = yield* Paths
    const logs = yield* LogStore
    const bus = yield* EventBus
    const sampler = yield* MetricsSampler
    const settings = yield* EngineOptions
    const pipes = yield* StdioPipes
    const scope = yield* Effect.scope
    /** Set by `handOver`: rows closing from then on leave their processes running. */
    let handingOff = false
    /** What runs after each spawn (the daemon saves state.json: a pid is never unrecorded for long). */
    let onSpawned: Effect.Effect<void> = Effect.void
    const context: SupervisorContext = {
      bus,
      logs,
      home: paths.home,
      pipes,
      handingOff: () => handingOff,
      spawned: () => onSpawned,
      cluster: makeClusterHost(() => handingOff)
    }

    const rows = new Map<number, Row>()
    let nextId = settings.firstId
    /** Guards the table's shape (adding and removing apps). */
    const tableLock = yield* Effect.makeSemaphore(1)
    /** One lock per app, so a slow reload of one app never holds up the others. */
    const withAppLock = makeKeyedLocks()
    /**
     * The rows of `selected` that are still in the table, as the table now holds them (a reload
     * may have swapped a row object for its replacement). Called with the app's lock held, it
     * tells a mutation which rows survived while it waited: a row deleted meanwhile is left out,
     * so no process is ever launched for a row nobody tracks.
     */
    const stillListed = (selected: ReadonlyArray<Row>): ReadonlyArray<Row> => {
      const out: Array<Row> = []
      for (const row of selected) {
        const current = rows.get(row.id)
        if (current !== undefined && current.removed !== true) out.push(current)
      }
      return out
    }

    /**
     * Runs `body` once per app of `selected`, each under that app's lock, with the app's rows that
     * are still in the table once the lock is held (apps with none left are skipped). Every
     * mutation goes through here (docs/decisions.md, "One lock per app for every mutation").
     */
    const forEachApp = <A, E>(
      selected: ReadonlyArray<Row>,
      body: (name: string, appRows: ReadonlyArray<Row>) => Effect.Effect<A, E>,
      options: { readonly concurrent?: boolean; readonly order?: ReadonlyArray<string> } = {}
    ): Effect.Effect<Array<A>, E> =>
      Effect.map(
        Effect.forEach(
          options.order ?? appNames(selected),
          (name) =>
            withAppLock(
              name,
              Effect.suspend(() => {
                const appRows = stillListed(selected.filter((row) => row.app.definition.name === name))
                return appRows.length === 0 ? Effect.succeed(Option.none<A>()) : Effect.asSome(body(name, appRows))
              })
            ),
          { concurrency: options.concurrent === true ? "unbounded" : 1 }
        ),
        (results) => results.flatMap((result) => (Option.isSome(result) ? [result.value] : []))
      )

    /**
     * {@link forEachApp} for stopping several apps (stop, delete, kill): in reverse dependency
     * order, dependents first (docs/architecture.md §4, depends_on). The apps of one level stop
     * together; the next level starts once they all have stopped.
     */
    const forEachAppDependentsFirst = <A, E>(selected: ReadonlyArray<Row>, body: (name: string, appRows: ReadonlyArray<Row>) => Effect.Effect<A, E>) =>
      Effect.map(
        Effect.forEach(stopLevels(appNames(selected), allRows().map((row) => row.app.definition)), (level) =>
          forEachApp(
            selected.filter((row) => level.includes(row.app.definition.name)),
            body,
            { concurrent: true }
          )
        ),
        (levels) => levels.flat()
      )

    /** Stops every row, dependents first, without changing what the user wants (kill, shutdown). */
    const haltAll = () =>
      Effect.suspend(() =>
        Effect.forEach(
          stopLevels(appNames(allRows()), allRows().map((row) => row.app.definition)),
          (level) => Effect.forEach(allRows().filter((row) => level.includes(row.app.definition.name)), halt, { concurrency: "unbounded", discard: true }),
          { discard: true }
        )
      )

    /** The target's rows were all deleted while the request waited for them (docs/api.md). */
    const deletedMeanwhile = (target: string) =>
      new ProcessNotFound({
        message: `${target} was deleted by another request while this one waited for it`,
        details: { process_id: target, suggestion: "list the processes; start the app again if you still need it" }
      })

    /** Fails with {@link deletedMeanwhile} when `selected` named rows and none of them is left. */
    const unlessAllGone = (target: string, selected: ReadonlyArray<Row>, survivors: ReadonlyArray<Row>) =>
      selected.length > 0 && survivors.length === 0 && target !== "all" ? Effect.fail(deletedMeanwhile(target)) : Effect.void

    /** Process ids of each row's tree at the last sample (for detailed memory). */
    const lastPids = new Map<number, ReadonlyArray<number>>()

    const allRows = () => [...rows.values()].sort((a, b) => a.id - b.id)
    const rowsOfApp = (name: string) => allRows().filter((row) => row.app.definition.name === name)
    const appNames = (selected: ReadonlyArray<Row>) => [...new Set(selected.map((row) => row.app.definition.name))]

    /** `{id}` of the CLI and the API (docs/architecture.md §4): numeric id, `all`, app name, then namespace. */
    const resolve = (target: string): Effect.Effect<ReadonlyArray<Row>, ProcessNotFound> =>
      Effect.suspend(() => {
        const trimmed = target
        const found = /^\d+$/.test(trimmed)
          ? allRows().filter((row) => row.id === Number(trimmed))
          : trimmed === "all"
            ? allRows()
            : rowsOfApp(trimmed).length > 0
              ? rowsOfApp(trimmed)
              : allRows().filter((row) => row.app.definition.namespace === trimmed)
        if (found.length > 0 || (trimmed === "all" && rows.size === 0)) return Effect.succeed(found)
        const names = appNames(allRows())
        const closest = closestKey(trimmed, names)
        return Effect.fail(
          new ProcessNotFound({
            message: `no process with id or name ${JSON.stringify(target)}`,
            details: {
              process_id: target,
              suggestion: closest !== undefined ? `did you mean "${closest}"?` : names.length === 0 ? "no app is defined yet: start one first" : "list the processes to see their ids and names"
            }
          })
        )
      })

    const summaryOf = (row: Row, state: RowState, now: number): ProcessSummary => {
      const port = state.portOverride ?? state.port
      const alive = state.pid !== null && state.startedAt !== null
      return {
        id: row.id,
        name: row.app.definition.name,
        namespace: row.app.definition.namespace,
        instance: row.instance,
        status: state.status,
        pid: state.pid,
        port: listedPort(row.app.definition, port, row.instance),
        cpu_usage: state.cpu,
        memory_usage: state.memory,
        uptime: formatUptime(alive ? now - state.startedAt! : 0),
        restarts: state.restarts,
        health_status: state.health.status,
        config_file: row.app.definition.config_file
      }
    }

    const summaries = (selected: ReadonlyArray<Row>) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        const out: Array<ProcessSummary> = []
        for (const row of selected) out.push(summaryOf(row, yield* SubscriptionRef.get(row.state), now))
        return out
      })

    /** Starts a row's supervisor and waits for its first spawn. */
    const launch = (row: Row, change: (state: RowState) => Partial<RowState> = () => ({}), adoption?: Adoption): Effect.Effect<void, StartError> =>
      Effect.gen(function* () {
        // Safety net: a deleted row never gets a process (callers hold the app lock and filter too).
        if (row.removed === true) return
        yield* updateRow(row, bus, (state) => ({ unstableRestarts: 0, ...change(state) }))
        // Its paths first: one that cannot be used fails this start, never the daemon (FILE_ERROR).
        const checked = yield* Effect.either(checkInstancePaths(row.app.definition, row.instance, paths.home))
        if (checked._tag === "Left") {
          yield* updateRow(row, bus, () => ({ status: "errored", pid: null, lastError: checked.left.message }))
          return yield* Effect.fail(checked.left)
        }
        yield* Queue.takeAll(row.requests)
        const firstSpawn = yield* Deferred.make<void, StartError>()
        row.fiber = yield* Effect.forkIn(superviseRow(row, context, firstSpawn, adoption), scope)
        yield* Deferred.await(firstSpawn)
      })

    /** Stops a row's supervisor (and with it the process group); the row ends `stopped`. */
    const halt = (row: Row): Effect.Effect<void> =>
      Effect.gen(function* () {
        const fiber = row.fiber
        row.fiber = null
        if (fiber !== null) yield* Fiber.interrupt(fiber)
        const state = yield* SubscriptionRef.get(row.state)
        if (isRunningStatus(state.status)) {
          yield* updateRow(row, bus, () => ({ status: "stopped", pid: null, cpu: 0, memory: 0, health: initialHealth(hasHealthCheck(row.app.definition)) }))
        }
      })

    /**
     * `stop` of a row: halted like any other, and an `errored` row (it gave up, or could not
     * start) becomes `stopped` too, as PM2 users expect of `stop` — it was asked to stay down,
     * so it no longer counts as a failure (`/health`, `list --status errored`).
     */
    const stopRow = (row: Row): Effect.Effect<void> =>
      Effect.zipRight(
        halt(row),
        updateRow(row, bus, (state) => (state.status === "errored" ? { status: "stopped", pid: null, cpu: 0, memory: 0 } : {}))
      )

    const isLive = (row: Row, state: RowState) => row.fiber !== null && isRunningStatus(state.status)

    /** Records what the user asked for (the daemon persists it and restores it after a restart). */
    const want = (selected: ReadonlyArray<Row>, desired: "running" | "stopped") =>
      Effect.gen(function* () {
        for (const row of selected) yield* SubscriptionRef.update(row.state, (state) => ({ ...state, desired }))
        yield* bus.publish({ _tag: "TableChanged" })
      })

    /** Waits until every app named in `depends_on` meets its condition; one that never will fails this app's start. */
    const awaitDependencies = (app: AppDefinition) =>
      Effect.forEach(app.depends_on, (dependency) => awaitDependency(app, dependency, rowsOfApp(dependency.name), settings.dependencyTimeoutMs), {
        discard: true
      })

    /**
     * Starts the given rows app by app in dependency order, each app under its lock with the rows
     * still in the table; `pick` (checked under the lock) narrows them, e.g. to rows not running.
     * Every app is tried, the first error is reported. Returns the rows still listed.
     */
    const startRows = (
      selected: ReadonlyArray<Row>,
      options: {
        readonly change?: (state: RowState) => Partial<RowState>
        readonly pick?: (row: Row, state: RowState) => boolean
        readonly desired?: "running"
        /** Filled with the error of each app whose own launch failed (not its wait for a dependency). */
        readonly launchFailures?: Map<string, StartError>
      } = {}
    ) =>
      Effect.gen(function* () {
        const definitions = appNames(selected).map((name) => selected.find((row) => row.app.definition.name === name)!.app.definition)
        const order = dependencyOrder(definitions).map((app) => app.name)
        let firstError: StartError | undefined
        const listed: Array<Row> = []
        const launched: Array<Row> = []
        yield* forEachApp(
          selected,
          (name, appRows) =>
            Effect.gen(function* () {
              listed.push(...appRows)
              if (options.desired !== undefined) yield* want(appRows, options.desired)
              const toStart: Array<Row> = []
              for (const row of appRows) if (options.pick === undefined || options.pick(row, yield* SubscriptionRef.get(row.state))) toStart.push(row)
              if (toStart.length === 0) return
              launched.push(...toStart)
              const app = toStart[0]!.app.definition
              if (app.depends_on.length > 0) {
                // Waiting for dependencies is part of starting (no pid yet); `show` says what for.
                const waitingFor = waitingText(app)
                yield* Effect.logInfo(`${app.name} waits for ${waitingFor}`)
                for (const row of toStart) yield* updateRow(row, bus, () => ({ status: "starting", pid: null, waitingFor }))
              }
              const waited = yield* Effect.either(awaitDependencies(app))
              for (const row of toStart) yield* updateRow(row, bus, () => ({ waitingFor: null }))
              if (Either.isLeft(waited)) {
                yield* Effect.logWarning(waited.left.message)
                for (const row of toStart) yield* updateRow(row, bus, () => ({ status: "errored", lastError: waited.left.details.reason }))
                return yield* Effect.fail(waited.left)
              }
              const started = yield* Effect.forEach(toStart, (row) => Effect.either(launch(row, options.change)), { concurrency: "unbounded" })
              const failed = started.find(Either.isLeft)
              if (failed !== undefined) {
                options.launchFailures?.set(name, failed.left)
                return yield* Effect.fail(failed.left)
              }
            }).pipe(
              Effect.catchAll((error: StartError) =>
                Effect.sync(() => {
                  if (firstError === undefined) firstError = error
                })
              )
            ),
          { order }
        )
        if (firstError !== undefined) return yield* Effect.fail(firstError)
        return { listed, launched }
      })

    /** Adds apps to the table, all or nothing: names, dependencies and ports are checked first. */
    const register = (definitions: ReadonlyArray<AppDefinition>, baseEnv: Readonly<Record<string, string>>) =>
      tableLock.withPermits(1)(
        Effect.gen(function* () {
          const batch = new Set<string>()
          for (const app of definitions) {
            if (rowsOfApp(app.name).length > 0 || batch.has(app.name)) {
              return yield* new ProcessAlreadyExists({
                message: `an app named ${app.name} already exists`,
                details: { process_id: app.name, suggestion: `use \`pmfx restart ${app.name}\`, or delete it first` }
              })
            }
            batch.add(app.name)
          }
          for (const app of definitions) {
            for (const [i, dependency] of app.depends_on.entries()) {
              const problem = dependencyProblem(dependency, batch.has(dependency.name) ? definitions.find((d) => d.name === dependency.name) : rowsOfApp(dependency.name)[0]?.app.definition)
              if (problem !== undefined) return yield* InvalidConfig.fromProblems([{ field: `${app.name}.depends_on[${i}]`, value: dependency.name, ...problem }])
            }
          }
          const held = new Set<number>()
          for (const row of allRows()) {
            const state = yield* SubscriptionRef.get(row.state)
            for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
          }
          const portsByApp = new Map<string, ReadonlyArray<number>>()
          for (const app of definitions) {
            if (app.port === null) continue
            // Cluster workers share the app's one port (its primary listens on it).
            const cluster = app.exec_mode === "cluster"
            const ports = yield* assignPorts(app.port, cluster ? 1 : app.instances, held, app.name)
            ports.forEach((port) => held.add(port))
            portsByApp.set(app.name, cluster ? Array.from({ length: app.instances }, () => ports[0]!) : ports)
          }
          const created: Array<Row> = []
          for (const app of definitions) {
            const record: AppRecord = { definition: app, baseEnv }
            for (let instance = 0; instance < app.instances; instance++) {
              const row: Row = {
                id: nextId++,
                instance,
                app: record,
                state: yield* SubscriptionRef.make(initialRowState(portsByApp.get(app.name)?.[instance] ?? null, hasHealthCheck(app))),
                requests: yield* Queue.dropping<RestartReason>(1),
                fiber: null
              }
              rows.set(row.id, row)
              created.push(row)
            }
          }
          return created
        })
      )

    /** Per-instance ports for a runtime override: a port or a range (instance i gets first+i), or auto:. */
    const overridePorts = (setting: string, appRows: ReadonlyArray<Row>) =>
      Effect.gen(function* () {
        const parsed = parsePort(setting)
        if (Either.isLeft(parsed)) {
          return yield* InvalidConfig.fromProblems([{ field: "port", value: setting, message: parsed.left, suggestion: "write a port (3000) or a range (3000-3003)" }])
        }
        const own = new Set(appRows.map((row) => row.id))
        const held = new Set<number>()
        for (const row of allRows()) {
          if (own.has(row.id)) continue
          const state = yield* SubscriptionRef.get(row.state)
          for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
        }
        const cluster = appRows[0]?.app.definition.exec_mode === "cluster"
        const ports = yield* assignPorts(setting, cluster ? 1 : appRows.length, held, appRows[0]?.app.definition.name ?? "app", { bindTest: false })
        return cluster ? appRows.map(() => ports[0]!) : ports
      })

    /** `--update-env`: the app's rows start from the caller's environment from now on (the caller holds the lock). */
    const refreshEnvironment = (appRows: ReadonlyArray<Row>, options: RunOptions) => {
      if (options.baseEnv === undefined || appRows.length === 0) return
      const record: AppRecord = { definition: appRows[0]!.app.definition, baseEnv: options.baseEnv }
      for (const row of appRows) row.app = record
    }

    /** The row's own port under a new definition (`redefine`), when there is one. */
    const ownPort = (options: RunOptions, i: number): Partial<RowState> => (options.basePorts === undefined ? {} : { port: options.basePorts[i] ?? null })

    /** Restarts one app's rows; the caller holds the app's lock and passes the rows still listed. */
    const restartApp = (name: string, appRows: ReadonlyArray<Row>, options: RunOptions, restartedTogether: ReadonlySet<string> = new Set()) =>
      Effect.gen(function* () {
        const ports = options.port === undefined ? undefined : yield* overridePorts(options.port, appRows)
        refreshEnvironment(appRows, options)
        yield* want(appRows, "running")
        const app = appRows[0]!.app.definition
        const wasLive = new Map<number, boolean>()
        for (const row of appRows) wasLive.set(row.id, isLive(row, yield* SubscriptionRef.get(row.state)))
        if (app.depends_on.some((dependency) => restartedTogether.has(dependency.name))) {
          // Its dependencies were just restarted: stop it, and start it once their conditions hold again.
          const waitingFor = waitingText(app)
          yield* Effect.forEach(appRows, halt, { concurrency: "unbounded", discard: true })
          for (const row of appRows) yield* updateRow(row, bus, () => ({ status: "starting", pid: null, waitingFor }))
          const waited = yield* Effect.either(awaitDependencies(app))
          for (const row of appRows) yield* updateRow(row, bus, () => ({ waitingFor: null }))
          if (Either.isLeft(waited)) {
            for (const row of appRows) yield* updateRow(row, bus, () => ({ status: "errored", lastError: waited.left.details.reason }))
            return yield* Effect.fail(waited.left)
          }
        }
        yield* Effect.forEach(
          appRows,
          (row, i) =>
            Effect.gen(function* () {
              const wasRunning = wasLive.get(row.id) === true
              yield* halt(row)
              yield* launch(row, (state) => ({ restarts: state.restarts + (wasRunning ? 1 : 0), portOverride: ports?.[i] ?? null, ...ownPort(options, i) }))
              if (wasRunning) {
                const state = yield* SubscriptionRef.get(row.state)
                yield* bus.publish({ _tag: "ProcessRestart", id: row.id, name, instance: row.instance, reason: "manual", restarts: state.restarts })
              }
            }),
          { concurrency: "unbounded", discard: true }
        )
        return appRows
      })

    /** Waits until a reloaded row is ready; PROCESS_START_FAILED when it will not be (in time). */
    const awaitReplacement = (row: Row, name: string, failOnExit: boolean) =>
      Effect.gen(function* () {
        // A replacement started beside the old process (replaceFirst) that exits before it is
        // ready ends the reload at once, and the old one keeps serving: waiting for its restarts
        // to reach `errored` would take a minute of backoff to say the same.
        const ready = yield* awaitRow(
          row,
          (s) => isReady(row, s) || s.status === "errored" || s.status === "stopped" || (failOnExit && s.status === "restarting")
        ).pipe(Effect.timeoutOption(Duration.millis(settings.dependencyTimeoutMs)))
        if (Option.isNone(ready) || !isReady(row, ready.value)) {
          const exit = Option.isSome(ready) ? ready.value.lastExit : null
          const reason = Option.isNone(ready)
            ? `instance ${row.instance} did not become ready in time`
            : exit !== null
              ? `instance ${row.instance} exited (${exit.signal !== null ? `killed by ${exit.signal}` : `code ${exit.code}`}) before it was ready`
              : `instance ${row.instance} is ${ready.value.status}`
          return yield* new ProcessStartFailed({
            message: `reload of ${name} stopped: ${reason}`,
            details: { process_id: name, reason, suggestion: `the remaining instances still run the old version; check \`pmfx logs ${name}\`` }
          })
        }
      })

    /**
     * Reload of a row with an `auto:` port (docs/architecture.md §4) or of a cluster worker: the replacement
     * starts first — on a new port from the range, or as a new worker on the app's shared port —
     * and the old process stops only once the replacement is ready (online). The
     * replacement is a new row object with the same id, swapped into the table when ready.
     */
    const replaceFirst = (row: Row, name: string, newPort?: number | null) =>
      Effect.gen(function* () {
        const current = yield* SubscriptionRef.get(row.state)
        const held = new Set<number>()
        for (const other of allRows()) {
          const state = yield* SubscriptionRef.get(other.state)
          for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
        }
        // A cluster worker's replacement listens on the same port (the primary shares it).
        const [port] =
          row.app.definition.exec_mode === "cluster"
            ? [newPort !== undefined ? newPort : (current.portOverride ?? current.port)]
            : yield* assignPorts(row.app.definition.port!, 1, held, name)
        const replacement: Row = {
          id: row.id,
          instance: row.instance,
          app: row.app,
          state: yield* SubscriptionRef.make({
            ...initialRowState(port ?? null, hasHealthCheck(row.app.definition)),
            restarts: current.restarts + 1,
            errors: current.errors,
            desired: current.desired
          }),
          requests: yield* Queue.dropping<RestartReason>(1),
          fiber: null
        }
        const started = yield* Effect.either(Effect.zipRight(launch(replacement), awaitReplacement(replacement, name, true)))
        if (Either.isLeft(started)) {
          replacement.retired = true
          replacement.removed = true
          yield* halt(replacement)
          return yield* Effect.fail(started.left)
        }
        rows.set(row.id, replacement)
        row.retired = true
        row.removed = true
        yield* halt(row)
        yield* bus.publish({ _tag: "ProcessRestart", id: row.id, name, instance: row.instance, reason: "reload", restarts: current.restarts + 1 })
      })

    /**
     * Reloads one app's rows (the caller holds the app's lock): one instance at a time, each
     * waiting for its replacement; an app with one instance is restarted instead (returns true).
     */
    const reloadApp = (name: string, appRows: ReadonlyArray<Row>, options: RunOptions) =>
      Effect.gen(function* () {
        const cluster = appRows[0]!.app.definition.exec_mode === "cluster"
        if (appRows.length === 1 && !cluster) {
          yield* restartApp(name, appRows, options)
          return true
        }
        const ports = options.port === undefined ? undefined : yield* overridePorts(options.port, appRows)
        refreshEnvironment(appRows, options)
        yield* want(appRows, "running")
        yield* Effect.forEach(
          appRows,
          (row, i) =>
            Effect.gen(function* () {
              // One instance at a time: the others keep serving while this one is replaced.
              const wasRunning = isLive(row, yield* SubscriptionRef.get(row.state))
              // Replacement first: an auto: port takes a new port; a cluster worker shares the app's.
              if (wasRunning && ports === undefined && (cluster || row.app.definition.port?.startsWith("auto:") === true)) {
                return yield* replaceFirst(row, name, options.basePorts?.[i])
              }
              yield* halt(row)
              yield* launch(row, (state) => ({ restarts: state.restarts + (wasRunning ? 1 : 0), portOverride: ports?.[i] ?? null, ...ownPort(options, i) }))
              const state = yield* SubscriptionRef.get(row.state)
              yield* bus.publish({ _tag: "ProcessRestart", id: row.id, name, instance: row.instance, reason: "reload", restarts: state.restarts })
              yield* awaitReplacement(row, name, false)
            }),
          { discard: true }
        )
        return false
      })

    /**
     * A creation that fails before its first spawn is not kept (docs/decisions.md, "Applying a
     * file"): the rows of each app whose launch failed and that never had a process leave the
     * table, so fixing the cause and starting again works instead of meeting
     * PROCESS_ALREADY_EXISTS. (An app whose dependency never came online stays, errored, saying why.)
     */
    const discardNeverSpawned = (created: ReadonlyArray<Row>, failures: ReadonlyMap<string, StartError>) =>
      Effect.gen(function* () {
        let removed = 0
        for (const name of failures.keys()) {
          yield* withAppLock(
            name,
            Effect.gen(function* () {
              const appRows = stillListed(created.filter((row) => row.app.definition.name === name))
              for (const row of appRows) if ((yield* SubscriptionRef.get(row.state)).startedAt !== null) return
              removed += (yield* scaleTable.removeRows(appRows)).length
            })
          )
        }
        if (removed > 0) yield* bus.publish({ _tag: "TableChanged" })
      })

    /** PORT_IN_USE when something outside pmfx listens on `port`. */
    const ensurePortFree = (port: number, owner: string) =>
      Effect.flatMap(isPortFree(port), (free) =>
        free
          ? Effect.void
          : Effect.fail(
              new PortInUse({
                message: `${owner}: port ${port} is already in use by another program`,
                details: { port, suggestion: `find it with \`ss -ltnp 'sport = :${port}'\`, or choose another port` }
              })
            )
      )

    /**
     * Each instance's port under a new definition of the app (instance i at index i): an instance
     * keeps its port while the `port` setting is the same; new instances, or all of them when the
     * setting changed, get ports as a new app would — except that the app's own ports are not
     * bind-tested (its processes hold them until they are restarted).
     */
    const portsUnder = (definition: AppDefinition, appRows: ReadonlyArray<Row>) =>
      Effect.gen(function* () {
        const count = definition.instances
        if (definition.port === null) return Array.from({ length: count }, () => null)
        const setting = definition.port
        const previous = appRows[0]!.app.definition
        const cluster = definition.exec_mode === "cluster"
        const own = new Set(appRows.map((row) => row.id))
        const held = new Set<number>()
        const mine = new Map<number, number>()
        for (const row of allRows()) {
          const state = yield* SubscriptionRef.get(row.state)
          if (!own.has(row.id)) {
            for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
          } else if (state.port !== null) mine.set(row.instance, state.port)
        }
        const ownPorts = new Set(mine.values())
        const slots = cluster ? 1 : count
        const auto = setting.startsWith("auto:")
        const same = previous.port === setting && previous.exec_mode === definition.exec_mode
        const kept = Array.from({ length: slots }, (_, i) => (same ? mine.get(i) : undefined))
        const missing = kept.flatMap((port, i) => (port === undefined ? [i] : []))
        let ports: ReadonlyArray<number>
        if (missing.length === 0) {
          ports = kept as ReadonlyArray<number>
        } else if (auto) {
          const fresh = [...(yield* assignPorts(setting, missing.length, new Set([...held, ...kept.filter((p) => p !== undefined)]), definition.name))]
          ports = kept.map((port) => port ?? fresh.shift()!)
        } else {
          const all = yield* assignPorts(setting, slots, held, definition.name, { bindTest: false })
          for (const i of missing) if (!ownPorts.has(all[i]!)) yield* ensurePortFree(all[i]!, definition.name)
          ports = kept.map((port, i) => port ?? all[i]!)
        }
        return cluster ? Array.from({ length: count }, () => ports[0]!) : [...ports]
      })

    /**
     * Gives an app a new definition and runs it (docs/api.md, `POST /api/apply`): the paths and
     * ports of the new definition are checked first (a failure changes nothing); a smaller
     * `instances` removes the highest instances, a larger one adds rows with new ids; then every
     * row restarts, reloads one at a time, or — `keep`, for an app with nothing running — only
     * takes the definition for its next start.
     */
    const redefine = (definition: AppDefinition, options: RedefineOptions) =>
      withAppLock(
        definition.name,
        Effect.gen(function* () {
          const name = definition.name
          const current = rowsOfApp(name).filter((row) => row.removed !== true)
          if (current.length === 0) return yield* deletedMeanwhile(name)
          yield* checkAppPaths([definition], paths.home)
          const previous = current[0]!.app
          const ports = yield* portsUnder(definition, current)
          const record: AppRecord = { definition, baseEnv: options.baseEnv ?? previous.baseEnv }
          // A cluster primary runs the program it was started with: every worker stops first, so
          // the next one starts a new primary with the new program.
          const primaryChanged = previous.definition.exec_mode === "cluster" && PRIMARY_SETTINGS.some((key) => !isDeepStrictEqual(previous.definition[key], definition[key]))
          if (primaryChanged && options.run !== "keep") yield* Effect.forEach(current, halt, { concurrency: "unbounded", discard: true })
          // The instance count changes as `scale` changes it (scaleApp.ts), with the ports above.
          const dropped = current.filter((row) => row.instance >= definition.instances).sort((a, b) => b.instance - a.instance)
          if (dropped.length > 0) yield* scaleTable.removeRows(dropped)
          const kept = current.filter((row) => row.instance < definition.instances)
          for (const row of kept) row.app = record
          const have = new Set(kept.map((row) => row.instance))
          const missing = Array.from({ length: definition.instances }, (_, instance) => instance).filter((instance) => !have.has(instance))
          const added = yield* scaleTable.addRows((id) =>
            Effect.forEach(missing, (instance) =>
              Effect.gen(function* () {
                const row: Row = {
                  id: id(),
                  instance,
                  app: record,
                  state: yield* SubscriptionRef.make(initialRowState(ports[instance] ?? null, hasHealthCheck(definition))),
                  requests: yield* Queue.dropping<RestartReason>(1),
                  fiber: null
                }
                return row
              })
            )
          )
          const appRows = [...kept, ...added].sort((a, b) => a.instance - b.instance)
          const rowPorts = appRows.map((row) => ports[row.instance] ?? null)
          yield* bus.publish({ _tag: "TableChanged" })
          if (options.run === "keep") {
            for (const [i, row] of appRows.entries()) {
              yield* updateRow(row, bus, () => ({ port: rowPorts[i] ?? null, portOverride: null, health: initialHealth(hasHealthCheck(definition)) }))
            }
            return { rows: yield* summaries(appRows), restartedInstead: false } satisfies RedefineResult
          }
          if (options.run === "reload" && !primaryChanged) {
            const restartedInstead = yield* reloadApp(name, appRows, { basePorts: rowPorts })
            return { rows: yield* summaries(appRows.map((row) => rows.get(row.id) ?? row)), restartedInstead } satisfies RedefineResult
          }
          yield* restartApp(name, appRows, { basePorts: rowPorts })
          return { rows: yield* summaries(appRows), restartedInstead: options.run === "reload" } satisfies RedefineResult
        })
      )

    /** One sample of every live row's process tree: metrics, history, memory limit (docs/architecture.md §4). */
    const sampleOnce = Effect.gen(function* () {
      const live: Array<{ row: Row; pid: number }> = []
      for (const row of allRows()) {
        const state = yield* SubscriptionRef.get(row.state)
        if (state.pid !== null) live.push({ row, pid: state.pid })
      }
      const metrics = yield* sampler.sample(live.map(({ row, pid }) => ({ key: row.id, pid })))
      const now = yield* Clock.currentTimeMillis
      const timestamp = new Date(now).toISOString()
      const reported: Array<{ id: number; name: string; instance: number; pid: number | null; cpu_usage: number; memory_usage: number }> = []
      for (const { row, pid } of live) {
        const sample = metrics.get(row.id)
        if (sample === undefined) continue
        lastPids.set(row.id, sample.pids)
        const family = row.family
        if (family !== undefined && family.leader === pid) {
          yield* refreshFromSample(family, sample.pids.map((p, i) => [p, sample.startTimes[i]!] as const))
        }
        const next = yield* SubscriptionRef.updateAndGet(row.state, (state) =>
          state.pid !== pid
            ? state
            : {
                ...state,
                cpu: sample.cpu_usage,
                memory: sample.memory_usage,
                history: [...state.history, { timestamp, cpu_usage: sample.cpu_usage, rss: sample.memory_usage }].slice(-HISTORY_LENGTH)
              }
        )
        // The row stopped or moved on to another process while /proc was read: this sample is stale.
        if (next.pid !== pid) continue
        reported.push({ id: row.id, name: row.app.definition.name, instance: row.instance, pid, cpu_usage: sample.cpu_usage, memory_usage: sample.memory_usage })
        const limit = row.app.definition.max_memory_restart
        if (limit !== null && next.pid === pid && sample.memory_usage > limit && (next.status === "online" || next.status === "starting")) {
          if (yield* Queue.offer(row.requests, "memory")) {
            yield* bus.publish({ _tag: "MemoryLimit", id: row.id, name: row.app.definition.name, instance: row.instance, memory: sample.memory_usage, limit })
          }
        }
      }
      yield* bus.publish({ _tag: "MetricsSample", timestamp, processes: reported })
    })

    yield* Effect.forkScoped(
      Effect.forever(
        sampleOnce.pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("metrics sample failed", cause)),
          Effect.zipRight(Effect.sleep(Duration.millis(settings.metricsIntervalMs)))
        )
      )
    )

    // Runs first when the engine closes: the apps of a dependency level stop at once, dependents first.
    yield* Effect.addFinalizer(haltAll)

    const detailOf = (row: Row, state: RowState, now: number): ProcessDetail => {
      const app = row.app.definition
      const files = instanceFiles(app, row.instance, paths.home)
      const check = app.health_check
      return {
        ...summaryOf(row, state, now),
        app_instances: rowsOfApp(app.name).map((r) => r.id),
        config: {
          script: app.script,
          args: app.args,
          shell: app.shell === null ? null : `${app.shell} -c`,
          instances: app.instances,
          exec_mode: app.exec_mode,
          max_memory_restart: app.max_memory_restart,
          port: app.port,
          env: app.env,
          cwd: app.cwd,
          depends_on: app.depends_on,
          ready_log_line: app.ready_log_line,
          ...definitionSource(app)
        },
        waiting_for: state.waitingFor,
        health_check:
          check === null
            ? { enabled: false, check_type: null, url: null, status: null, last_check: null, response_time: null }
            : {
                enabled: check.enabled,
                check_type: check.check_type,
                url: check.url,
                status: state.health.status,
                last_check: state.health.last_check,
                response_time: state.health.response_time
              },
        logs: { out_file: files.out_file, error_file: files.error_file },
        cron_restart: app.cron_restart === null ? null : { schedule: app.cron_restart, next_run: nextRunOf(app.cron_restart, now) },
        last_exit: lastExitOf(state.lastExit)
      }
    }

    /** Empties the rows' log files (LogStore.flush); returns the paths. */
    const flushRows = (selected: ReadonlyArray<Row>) =>
      logs.flush(
        selected.flatMap((row) => {
          const f = instanceFiles(row.app.definition, row.instance, paths.home)
          return f.log_file === null ? [f.out_file, f.error_file] : [f.out_file, f.error_file, f.log_file]
        })
      )

    /** What `scale` (scaleApp.ts) needs of the table; every call is made with the app's lock held. */
    const scaleTable: ScaleTable = {
      allRows,
      addRows: (make) =>
        tableLock.withPermits(1)(
          Effect.gen(function* () {
            const added = yield* make(() => nextId++)
            for (const row of added) rows.set(row.id, row)
            return added
          })
        ),
      removeRows: (leaving) =>
        Effect.gen(function* () {
          const ids: Array<number> = []
          for (const row of leaving) {
            // Marked first: the supervisor never spawns again for a removed row.
            row.removed = true
            yield* halt(row)
            yield* tableLock.withPermits(1)(
              Effect.sync(() => {
                if (rows.get(row.id) !== row) return
                rows.delete(row.id)
                lastPids.delete(row.id)
                ids.push(row.id)
              })
            )
          }
          return ids
        })
    }

    return {
      /**
       * Adds apps and starts them in dependency order; every row gets an id, none is reused. A
       * row deleted by another request before it could start is not started (its summary says
       * `stopped`).
       */
      create: (definitions: ReadonlyArray<AppDefinition>, options: { readonly baseEnv?: Readonly<Record<string, string>> } = {}) =>
        Effect.gen(function* () {
          // Paths are checked before anything is added: an app with an unusable path is not created.
          yield* checkAppPaths(definitions, paths.home)
          const created = yield* register(definitions, options.baseEnv ?? {})
          const failures = new Map<string, StartError>()
          // PM2's autostart: false registers the app stopped; `start` runs it (it stays stopped after a daemon restart).
          const started = yield* Effect.either(
            startRows(
              created.filter((row) => row.app.definition.autostart),
              { desired: "running", launchFailures: failures }
            )
          )
          yield* discardNeverSpawned(created, failures)
          if (Either.isLeft(started)) return yield* Effect.fail(started.left)
          return yield* summaries(created)
        }),

      redefine,

      /** An app as the table holds it now (its definition, starting environment and rows), if it exists. */
      app: (name: string) =>
        Effect.suspend(() => {
          const appRows = rowsOfApp(name).filter((row) => row.removed !== true)
          if (appRows.length === 0) return Effect.succeed(Option.none<AppView>())
          return Effect.map(summaries(appRows), (summaryRows) =>
            Option.some<AppView>({ definition: appRows[0]!.app.definition, baseEnv: appRows[0]!.app.baseEnv, rows: summaryRows })
          )
        }),

      /** Starts the rows that are not running; PROCESS_ALREADY_RUNNING when all of them run. */
      start: (target: string) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const { listed, launched } = yield* startRows(selected, {
            desired: "running",
            pick: (row, state) => !isLive(row, state),
            change: () => ({ portOverride: null })
          })
          yield* unlessAllGone(target, selected, listed)
          if (launched.length === 0 && listed.length > 0) {
            const state = yield* SubscriptionRef.get(listed[0]!.state)
            return yield* new ProcessAlreadyRunning({
              message: `${target} is already running`,
              details: { process_id: target, pid: state.pid ?? 0, suggestion: `use \`pmfx restart ${target}\` to restart it` }
            })
          }
          return yield* summaries(listed)
        }),

      /**
       * Stops the rows (idempotent): SIGTERM to each process group, SIGKILL after `kill_timeout`.
       * Every row ends `stopped`, an `errored` one included.
       */
      stop: (target: string) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const stopped = yield* forEachAppDependentsFirst(selected, (_name, appRows) =>
            Effect.zipRight(want(appRows, "stopped"), Effect.as(Effect.forEach(appRows, stopRow, { concurrency: "unbounded", discard: true }), appRows))
          )
          yield* unlessAllGone(target, selected, stopped.flat())
          return yield* summaries(stopped.flat())
        }),

      restart: (target: string, options: RunOptions = {}) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          // Dependencies first; a dependent restarted with them waits for their conditions again,
          // as at start (docs/configuration.md, depends_on).
          const definitions = appNames(selected).map((name) => selected.find((row) => row.app.definition.name === name)!.app.definition)
          const order = dependencyOrder(definitions).map((app) => app.name)
          const restarted = (yield* forEachApp(selected, (name, appRows) => restartApp(name, appRows, options, new Set(order)), { order })).flat()
          yield* unlessAllGone(target, selected, restarted)
          return yield* summaries(restarted)
        }),

      /** Replaces instances one at a time, each waiting for its replacement to be ready (docs/architecture.md §4). */
      reload: (target: string, options: RunOptions = {}) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const restartedInstead: Array<string> = []
          const reloaded = (yield* forEachApp(selected, (name, appRows) =>
            Effect.map(reloadApp(name, appRows, options), (restarted) => {
              if (restarted) restartedInstead.push(name)
              return appRows
            })
          )).flat()
          yield* unlessAllGone(target, selected, reloaded)
          // A reload may have swapped row objects (auto: ports): report the current ones.
          const current = reloaded.map((row) => rows.get(row.id) ?? row)
          return { rows: yield* summaries(current), restartedInstead } satisfies ReloadResult
        }),

      /**
       * Stops and removes the rows; returns the ids this call removed (a row another request
       * deleted first is not counted). PROCESS_NOT_FOUND when every row was deleted meanwhile.
       */
      delete: (target: string) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const deleted = yield* forEachAppDependentsFirst(
            selected,
            (_name, appRows) =>
              Effect.gen(function* () {
                // Marked first: the supervisor never spawns again for a removed row.
                for (const row of appRows) row.removed = true
                yield* Effect.forEach(appRows, halt, { concurrency: "unbounded", discard: true })
                return yield* tableLock.withPermits(1)(
                  Effect.sync(() => {
                    const ids: Array<number> = []
                    for (const row of appRows) {
                      if (rows.get(row.id) !== row) continue
                      rows.delete(row.id)
                      lastPids.delete(row.id)
                      ids.push(row.id)
                    }
                    return ids
                  })
                )
              })
          )
          const ids = deleted.flat().sort((a, b) => a - b)
          yield* unlessAllGone(target, selected, ids.length === 0 ? [] : selected)
          if (ids.length > 0) yield* bus.publish({ _tag: "TableChanged" })
          return ids
        }),

      /**
       * Changes an app's instance count live (scaleApp.ts): `count` is the new count or `{by}` a
       * change of it. Takes an app name only (an id or a namespace names no one count).
       */
      scale: (name: string, count: ScaleCount) =>
        Effect.gen(function* () {
          const appRows = rowsOfApp(name)
          if (appRows.length === 0) {
            const found = yield* resolve(name)
            return yield* new ProcessNotFound({
              message: `${JSON.stringify(name)} is not an app name: scale changes the instance count of one app`,
              details: { process_id: name, suggestion: `name the app, like \`pmfx scale ${appNames(found)[0] ?? "<app>"} 4\`` }
            })
          }
          const [result] = yield* forEachApp(appRows, (_name, current) =>
            scaleApp(scaleTable, current, count, (added) => Effect.forEach(added, (row) => launch(row), { concurrency: "unbounded", discard: true }))
          )
          if (result === undefined) return yield* Effect.fail(deletedMeanwhile(name))
          yield* bus.publish({ _tag: "TableChanged" })
          return { ...result, processes: yield* summaries(rowsOfApp(name)) } satisfies ScaleResult & { processes: ReadonlyArray<ProcessSummary> }
        }),

      /**
       * Empties the log files of the target's instances (every app's without a target) and removes
       * their rotated files; writers keep their descriptors (LogStore.flush). Returns the paths.
       */
      flushLogs: (target: string) => Effect.flatMap(resolve(target), flushRows),
      flushAllLogs: () => Effect.suspend(() => flushRows(allRows())),

      /** Reopens every open log file at its path, for an outside logrotate that moved them away. */
      reopenLogs: () => logs.reopenAll(),

      /** Sends `signal` to the process of every running instance of the target; returns the ids signalled. */
      sendSignal: (target: string, signal: SignalSpec) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const signalled: Array<number> = []
          for (const row of selected) {
            const state = yield* SubscriptionRef.get(row.state)
            if (state.pid === null) continue
            try {
              process.kill(state.pid, signal.number)
              signalled.push(row.id)
            } catch {
              // Exited meanwhile: its supervisor reports the exit.
            }
          }
          return { signalled, processes: yield* summaries(selected) }
        }),

      /** The environment of the lowest id the target names: its process's, or its next start's (instanceEnv.ts). */
      environment: (target: string) =>
        Effect.gen(function* () {
          const [row] = yield* resolve(target)
          if (row === undefined) {
            return yield* new ProcessNotFound({ message: "no process is defined", details: { process_id: target, suggestion: "start one first" } })
          }
          const state = yield* SubscriptionRef.get(row.state)
          const found = yield* instanceEnvironmentOf(row.app, row.instance, state.pid, state.portOverride ?? state.port)
          return { id: row.id, name: row.app.definition.name, instance: row.instance, ...found }
        }),

      /**
       * Zeroes the target's restart counts, abnormal exits and unstable exits in a row (what sends
       * a crash-looping row to `errored`); the status stays as it is.
       */
      reset: (target: string) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const reset = (yield* forEachApp(selected, (_name, appRows) =>
            Effect.as(
              Effect.forEach(appRows, (row) => SubscriptionRef.update(row.state, (state) => ({ ...state, restarts: 0, unstableRestarts: 0, errors: 0 })), {
                discard: true
              }),
              appRows
            )
          )).flat()
          yield* unlessAllGone(target, selected, reset)
          yield* bus.publish({ _tag: "TableChanged" })
          return yield* summaries(reset)
        }),

      list: () => Effect.suspend(() => summaries(allRows())),

      /** The rows a target names (for callers that filter further). */
      resolve: (target: string) => Effect.flatMap(resolve(target), summaries),

      /** Detail of the lowest id the target names (docs/api.md). */
      get: (target: string) =>
        Effect.gen(function* () {
          const [row] = yield* resolve(target)
          if (row === undefined) {
            return yield* new ProcessNotFound({ message: "no process is defined", details: { process_id: target, suggestion: "start one first" } })
          }
          const now = yield* Clock.currentTimeMillis
          return detailOf(row, yield* SubscriptionRef.get(row.state), now)
        }),

      /** Completes when every row is online (and healthy with a check); READY_TIMEOUT otherwise. */
      waitReady: (target: string, timeoutMs: number) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const startedAt = yield* Clock.currentTimeMillis
          const settled = yield* Effect.forEach(
            selected,
            (row) => awaitRow(row, (state) => isReady(row, state) || state.status === "errored" || state.status === "stopped"),
            { concurrency: "unbounded" }
          ).pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))
          const waited = (yield* Clock.currentTimeMillis) - startedAt
          if (Option.isSome(settled) && selected.every((row, i) => isReady(row, settled.value[i]!))) return yield* summaries(selected)
          const states: Record<string, string> = {}
          for (const row of selected) states[String(row.id)] = (yield* SubscriptionRef.get(row.state)).status
          const notReady = Object.entries(states).filter(([, status]) => status !== "online")
          return yield* new ReadyTimeout({
            message: Option.isNone(settled)
              ? `${target} was not ready after ${Math.round(waited / 1000)}s`
              : `${target} will not become ready: ${notReady.map(([id, status]) => `row ${id} is ${status}`).join(", ") || "a health check is failing"}`,
            details: { process_id: target, waited_ms: waited, states }
          })
        }),

      /**
       * The last matching log lines of the target, oldest first (docs/architecture.md §7, docs/api.md). A numeric id
       * reads that row's instance; a namespace or `all` reads every app it names, merged in time.
       */
      readLogs: (target: string, query: LogQuery = {}) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const single = /^\d+$/.test(target.trim()) ? selected[0] : undefined
          const perApp = yield* Effect.forEach(appNames(selected), (name) =>
            logs.read(rowsOfApp(name)[0]!.app.definition, single === undefined ? query : { ...query, instance: single.instance })
          )
          const merged = perApp.flat()
          if (perApp.length <= 1) return merged
          const sorted = [...merged].sort((a, b) => (a.timestamp ?? "").localeCompare(b.timestamp ?? ""))
          return sorted.slice(-(query.lines ?? DEFAULT_LINES))
        }),

      /** New log lines of the target as they are written, with the same filters (not since/until). */
      followLogs: (target: string, query: LogQuery = {}) =>
        Effect.gen(function* () {
          const selected = yield* resolve(target)
          const ids = new Set(selected.map((row) => row.id))
          const now = yield* Clock.currentTimeMillis
          const filter = yield* compileLogQuery({ ...query, instance: undefined, since: undefined, until: undefined }, { instances: Number.MAX_SAFE_INTEGER }, now)
          const instance = /^\d+$/.test(target.trim()) ? null : (query.instance ?? null)
          return bus.stream({ logs: true }).pipe(
            Stream.filterMap((event) =>
              event._tag === "LogLine" && ids.has(event.id) && (instance === null || event.instance === instance) && entryMatches(filter, event.entry)
                ? Option.some(event.entry)
                : Option.none()
            )
          )
        }),

      /** CPU, detailed memory, uptime, restarts, errors and the recent history of one row (docs/api.md). */
      metrics: (target: string) =>
        Effect.gen(function* () {
          const [row] = yield* resolve(target)
          if (row === undefined) {
            return yield* new ProcessNotFound({ message: "no process is defined", details: { process_id: target, suggestion: "start one first" } })
          }
          const state = yield* SubscriptionRef.get(row.state)
          const now = yield* Clock.currentTimeMillis
          const pids = state.pid === null ? [] : lastPids.get(row.id) ?? [state.pid]
          const memory = yield* readMemoryDetail(pids)
          const uptimeMs = state.pid !== null && state.startedAt !== null ? now - state.startedAt : 0
          return {
            id: row.id,
            name: row.app.definition.name,
            instance: row.instance,
            pid: state.pid,
            cpu_usage: state.cpu,
            memory,
            uptime_ms: uptimeMs,
            uptime: formatUptime(uptimeMs),
            restarts: state.restarts,
            errors: state.errors,
            history: state.history
          } satisfies ProcessMetrics
        }),

      /** Everything needed to bring the table back after a restart of the host (see EngineSnapshot). */
      snapshot: (): Effect.Effect<EngineSnapshot> =>
        Effect.gen(function* () {
          const apps = new Map<string, { definition: AppDefinition; env: Readonly<Record<string, string>>; rows: Array<RowSnapshot> }>()
          for (const row of allRows()) {
            const state = yield* SubscriptionRef.get(row.state)
            const name = row.app.definition.name
            let entry = apps.get(name)
            if (entry === undefined) {
              entry = { definition: row.app.definition, env: row.app.baseEnv, rows: [] }
              apps.set(name, entry)
            }
            entry.rows.push({
              id: row.id,
              instance: row.instance,
              port: state.port,
              restarts: state.restarts,
              desired: state.desired,
              pid: state.pid,
              pid_start_time: state.pid === null ? null : Option.getOrNull(yield* readStartTime(state.pid)),
              started_at: state.pid === null ? null : state.startedAt,
              pipes: state.pid === null ? null : state.pipes
            })
          }
          return { next_id: nextId, apps: [...apps.values()] }
        }),

      /**
       * Puts saved apps back with their ids, ports and restart counts, and starts the rows the user
       * wanted running. Apps whose name is already in the table are skipped. A row that cannot
       * start ends `errored`; the restore itself does not fail.
       */
      restore: (
        snapshot: EngineSnapshot,
        options: {
          readonly start?: boolean
          /** Live processes of an earlier daemon to take over, by row id (they are not started again). */
          readonly adopt?: ReadonlyMap<number, Adoption>
        } = {}
      ) =>
        Effect.gen(function* () {
          const restored = yield* tableLock.withPermits(1)(
            Effect.gen(function* () {
              const created: Array<Row> = []
              for (const app of snapshot.apps) {
                if (rowsOfApp(app.definition.name).length > 0) continue
                const record: AppRecord = { definition: app.definition, baseEnv: app.env }
                for (const saved of app.rows) {
                  if (rows.has(saved.id)) continue
                  const row: Row = {
                    id: saved.id,
                    instance: saved.instance,
                    app: record,
                    state: yield* SubscriptionRef.make({
                      ...initialRowState(saved.port, hasHealthCheck(app.definition)),
                      restarts: saved.restarts,
                      desired: saved.desired
                    }),
                    requests: yield* Queue.dropping<RestartReason>(1),
                    fiber: null
                  }
                  rows.set(row.id, row)
                  created.push(row)
                }
              }
              nextId = Math.max(nextId, snapshot.next_id, ...allRows().map((row) => row.id + 1))
              return created
            })
          )
          yield* bus.publish({ _tag: "TableChanged" })
          const adopt = options.adopt ?? new Map<number, Adoption>()
          // Adopted first: their processes run already, and apps that depend on them may wait for them.
          yield* Effect.forEach(
            restored.filter((row) => adopt.has(row.id)),
            (row) => withAppLock(row.app.definition.name, Effect.ignore(launch(row, () => ({}), adopt.get(row.id)))),
            { concurrency: "unbounded", discard: true }
          )
          const wanted: Array<Row> = []
          for (const row of restored) if (!adopt.has(row.id) && (yield* SubscriptionRef.get(row.state)).desired === "running") wanted.push(row)
          if (options.start !== false) yield* Effect.ignore(startRows(wanted, { pick: (_row, state) => state.desired === "running" }))
          return yield* summaries(restored)
        }),

      /**
       * Lets go of every row while its process keeps running, for a successor host that adopts
       * them (`pmfx daemon restart`): the supervisors end, the log streams hand off (nothing read
       * is lost), and each row keeps its pid and FIFOs for the last snapshot.
       */
      handOver: () =>
        Effect.suspend(() => {
          handingOff = true
          return Effect.forEach(
            allRows(),
            (row) =>
              Effect.suspend(() => {
                const fiber = row.fiber
                row.fiber = null
                return fiber === null ? Effect.void : Fiber.interrupt(fiber)
              }),
            { concurrency: "unbounded", discard: true }
          )
        }),

      /** Starts `effect` right after each spawn (the daemon saves its state: the new pid is recorded at once). */
      onSpawned: (effect: Effect.Effect<void>) => Effect.sync(() => void (onSpawned = effect)),

      /** Stops every row, dependents first, without changing what the user wants (the host is shutting down, or `kill`). */
      shutdown: haltAll,

      /** Starts every row the user wants running that does not run (after `kill`, docs/architecture.md §5). */
      resurrect: () =>
        Effect.gen(function* () {
          const wanted: Array<Row> = []
          for (const row of allRows()) {
            const state = yield* SubscriptionRef.get(row.state)
            if (state.desired === "running" && !isLive(row, state)) wanted.push(row)
          }
          yield* Effect.ignore(startRows(wanted, { pick: (row, state) => state.desired === "running" && !isLive(row, state) }))
          return yield* summaries(stillListed(wanted))
        }),

      /** The id the next new row will get. */
      nextId: () => Effect.sync(() => nextId),

      /** Internal row access for the log and metrics faces. */
      rowsFor: (target: string) => resolve(target),
      lastPidsOf: (id: number) => lastPids.get(id) ?? [],
      /** The definition a row runs (alerts read its per-app thresholds); none once it is deleted. */
      definitionOf: (id: number): Option.Option<AppDefinition> => Option.map(Option.fromNullable(rows.get(id)), (row) => row.app.definition),
      rowState: (row: Row) => SubscriptionRef.get(row.state),
      /** State changes of a row, for waiting in tests and faces. */
      changes: (row: Row) => row.state.changes as Stream.Stream<RowState>
    }
  })
}) {}
