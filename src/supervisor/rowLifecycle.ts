/**
 * Lifecycle of rows (docs/architecture.md §4): launch a row's supervisor, halt it, stop it,
 * record what the user wants, start rows by dependency level (waiting for each app's
 * `depends_on`), and restart an app's rows. Callers hold the app's lock (ProcessTable.forEachApp).
 */
import { Deferred, Effect, Either, Fiber, SubscriptionRef } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { isRunningStatus } from "../domain/ProcessStatus"
import type { EventBus } from "../events/EventBus"
import { checkInstancePaths } from "./checkAppPaths"
import type { DetachedFork } from "./detachedFork"
import { awaitDependency, waitingText } from "./dependencyConditions"
import { forEachAppDependenciesFirst } from "./bulkOrder"
import type { ProcessTable } from "./processTable"
import { hasHealthCheck, initialHealth, type Row, type RowState } from "./Row"
import { overridePorts, ownPort, refreshEnvironment, type RunOptions } from "./runOptions"
import type { ScaleTable } from "./scaleApp"
import { type Adoption, type StartError, superviseRow, type SupervisorContext, updateRow } from "./Supervisor"

/** Online, and healthy when the app has a health check: what `waitReady` and a reload wait for. */
export const isReady = (row: Row, state: RowState) =>
  state.status === "online" && (!hasHealthCheck(row.app.definition) || state.health.status === "healthy")

/** A row whose supervisor runs a process (or is about to). */
export const isLive = (row: Row, state: RowState) => row.fiber !== null && isRunningStatus(state.status)

export interface LifecycleDeps {
  readonly table: ProcessTable
  readonly bus: EventBus
  readonly home: string
  readonly dependencyTimeoutMs: number
  readonly context: SupervisorContext
  /** Forks supervisor fibers as the engine's descendants, in its scope: closing it stops every row (detachedFork.ts). */
  readonly fork: DetachedFork
}

export type RowLifecycle = ReturnType<typeof makeRowLifecycle>

export const makeRowLifecycle = ({ table, bus, home, dependencyTimeoutMs, context, fork }: LifecycleDeps) => {
  /**
   * Starts a row's supervisor and waits for its first spawn. `pathsChecked`: the caller checked
   * the row's paths moments before (a creation's `checkAppPaths`; only the table's and the app's
   * locks were awaited since), so they are not opened a second time.
   */
  const launch = (
    row: Row,
    change: (state: RowState) => Partial<RowState> = () => ({}),
    adoption?: Adoption,
    pathsChecked = false
  ): Effect.Effect<void, StartError> =>
    Effect.gen(function* () {
      // Safety net: a deleted row never gets a process (callers hold the app lock and filter too).
      if (row.removed === true) return
      yield* updateRow(row, bus, (state) => ({ unstableRestarts: 0, ...change(state) }))
      // Its paths first: one that cannot be used fails this start, never the daemon (FILE_ERROR).
      const checked = pathsChecked
        ? Either.void
        : yield* Effect.either(checkInstancePaths(row.app.definition, row.instance, home))
      if (checked._tag === "Left") {
        yield* updateRow(row, bus, () => ({ status: "errored", pid: null, lastError: checked.left.message }))
        return yield* Effect.fail(checked.left)
      }
      row.requests.clear()
      const firstSpawn = yield* Deferred.make<void, StartError>()
      // Not a child of the caller (often an HTTP request), whose context it would keep (detachedFork.ts).
      row.fiber = yield* fork(superviseRow(row, context, firstSpawn, adoption))
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
        yield* updateRow(row, bus, () => ({
          status: "stopped",
          pid: null,
          health: initialHealth(hasHealthCheck(row.app.definition))
        }))
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
      updateRow(row, bus, (state) =>
        state.status === "errored"
          ? {
              status: "stopped",
              pid: null,
              // An errored row keeps its last check (why it gave up); a stopped one has nothing to check.
              health: initialHealth(hasHealthCheck(row.app.definition))
            }
          : {}
      )
    )

  /** Records what the user asked for (the daemon persists it and restores it after a restart). */
  const want = (selected: ReadonlyArray<Row>, desired: "running" | "stopped") =>
    Effect.gen(function* () {
      for (const row of selected) yield* SubscriptionRef.update(row.state, (state) => ({ ...state, desired }))
      yield* bus.publish({ _tag: "TableChanged" })
    })

  /** Waits until every app named in `depends_on` meets its condition; one that never will fails this app's start. */
  const awaitDependencies = (app: AppDefinition) =>
    Effect.forEach(
      app.depends_on,
      (dependency) => awaitDependency(app, dependency, table.rowsOfApp(dependency.name), dependencyTimeoutMs),
      { discard: true }
    )

  /**
   * Waits for the app's `depends_on` apps, its rows `starting` meanwhile (waiting is part of
   * starting: no pid yet; `show` says what for); on a dependency that never meets its condition
   * they end `errored`, saying why.
   */
  const waitForDependencies = (app: AppDefinition, appRows: ReadonlyArray<Row>, log: boolean) =>
    Effect.gen(function* () {
      if (app.depends_on.length > 0) {
        const waitingFor = waitingText(app)
        if (log) yield* Effect.logInfo(`${app.name} waits for ${waitingFor}`)
        for (const row of appRows) yield* updateRow(row, bus, () => ({ status: "starting", pid: null, waitingFor }))
      }
      const waited = yield* Effect.either(awaitDependencies(app))
      for (const row of appRows) yield* updateRow(row, bus, () => ({ waitingFor: null }))
      if (Either.isLeft(waited)) {
        if (log) yield* Effect.logWarning(waited.left.message)
        for (const row of appRows)
          yield* updateRow(row, bus, () => ({ status: "errored", lastError: waited.left.details.reason }))
        return yield* Effect.fail(waited.left)
      }
    })

  /**
   * Starts the given rows in dependency order, the apps of one dependency level together
   * (bulkOrder.ts), each app under its lock with the rows still in the table; `pick` (checked
   * under the lock) narrows them, e.g. to rows not running. Every app is tried, the first error
   * (in dependency order) is reported. Returns the rows still listed.
   */
  const startRows = (
    selected: ReadonlyArray<Row>,
    options: {
      readonly change?: (state: RowState) => Partial<RowState>
      readonly pick?: (row: Row, state: RowState) => boolean
      readonly desired?: "running"
      /** Filled with the error of each app whose own launch failed (not its wait for a dependency). */
      readonly launchFailures?: Map<string, StartError>
      /**
       * The rows' paths were checked just before (a creation): an app with no `depends_on` is
       * launched without checking them again; one that waited for its dependencies is checked.
       */
      readonly pathsChecked?: boolean
    } = {}
  ) =>
    Effect.gen(function* () {
      const perApp = yield* forEachAppDependenciesFirst(table, selected, (name, appRows) =>
        Effect.gen(function* () {
          if (options.desired !== undefined) yield* want(appRows, options.desired)
          const toStart: Array<Row> = []
          for (const row of appRows) {
            if (options.pick === undefined || options.pick(row, yield* SubscriptionRef.get(row.state)))
              toStart.push(row)
          }
          const error =
            toStart.length === 0
              ? undefined
              : yield* Effect.gen(function* () {
                  const app = toStart[0]!.app.definition
                  yield* waitForDependencies(app, toStart, true)
                  const checked = options.pathsChecked === true && app.depends_on.length === 0
                  const started = yield* Effect.forEach(
                    toStart,
                    (row) => Effect.either(launch(row, options.change, undefined, checked)),
                    { concurrency: "unbounded" }
                  )
                  const failed = started.find(Either.isLeft)
                  if (failed !== undefined) {
                    options.launchFailures?.set(name, failed.left)
                    return yield* Effect.fail(failed.left)
                  }
                }).pipe(Effect.match({ onFailure: (failure) => failure, onSuccess: () => undefined }))
          return { listed: appRows, launched: toStart, error }
        })
      )
      // The first failure in dependency order, whichever came first in time.
      const firstError = perApp.find((app) => app.error !== undefined)?.error
      if (firstError !== undefined) return yield* Effect.fail(firstError)
      return { listed: perApp.flatMap((app) => app.listed), launched: perApp.flatMap((app) => app.launched) }
    })

  /** Restarts one app's rows; the caller holds the app's lock and passes the rows still listed. */
  const restartApp = (
    name: string,
    appRows: ReadonlyArray<Row>,
    options: RunOptions,
    restartedTogether: ReadonlySet<string> = new Set()
  ) =>
    Effect.gen(function* () {
      const ports = options.port === undefined ? undefined : yield* overridePorts(table, options.port, appRows)
      refreshEnvironment(table, appRows, options)
      yield* want(appRows, "running")
      const app = appRows[0]!.app.definition
      const wasLive = new Map<number, boolean>()
      for (const row of appRows) wasLive.set(row.id, isLive(row, yield* SubscriptionRef.get(row.state)))
      if (app.depends_on.some((dependency) => restartedTogether.has(dependency.name))) {
        // Its dependencies were just restarted: stop it, and start it once their conditions hold again.
        yield* Effect.forEach(appRows, halt, { concurrency: "unbounded", discard: true })
        // Logged as at start: daemon.log says what it waits for and, when that fails, why.
        yield* waitForDependencies(app, appRows, true)
      }
      yield* Effect.forEach(
        appRows,
        (row, i) =>
          Effect.gen(function* () {
            const wasRunning = wasLive.get(row.id) === true
            yield* halt(row)
            yield* launch(row, (state) => ({
              restarts: state.restarts + (wasRunning ? 1 : 0),
              portOverride: ports?.[i] ?? null,
              ...ownPort(options, i)
            }))
            if (wasRunning) {
              const state = yield* SubscriptionRef.get(row.state)
              yield* bus.publish({
                _tag: "ProcessRestart",
                id: row.id,
                name,
                instance: row.instance,
                reason: "manual",
                restarts: state.restarts
              })
            }
          }),
        { concurrency: "unbounded", discard: true }
      )
      return appRows
    })

  /** What `scale` and `redefine` (scaleApp.ts) need of the table; every call is made with the app's lock held. */
  const scaleTable: ScaleTable = {
    allRows: table.allRows,
    makeRow: table.makeRow,
    appRecord: table.appRecord,
    addRows: (make) =>
      table.tableLock.withPermits(1)(
        Effect.gen(function* () {
          const added = yield* make(table.takeId)
          for (const row of added) table.rows.set(row.id, row)
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
          ids.push(...(yield* table.unlist([row])))
        }
        return ids
      })
  }

  return { launch, halt, stopRow, want, awaitDependencies, startRows, restartApp, scaleTable }
}
