/**
 * The process table and every operation on it (docs/architecture.md §4): create apps from definitions, start,
 * stop, restart, reload, delete, list, get and wait until ready — each addressed by numeric id,
 * app name, namespace or `all`. Works in any program: a test or an embedding app builds it from
 * layers; the daemon is just one host of it.
 *
 * This file only assembles the service; each job lives in a module of its own:
 * processTable.ts (rows, ids, locks, targets), rowLifecycle.ts (launch, halt, start, restart),
 * reloadApp.ts, redefineApp.ts, registerApps.ts, bulkOrder.ts (dependency order of bulk
 * operations), processOperations.ts (the mutations), processViews.ts and logFaces.ts (read
 * models), tableSnapshot.ts (save and restore), metricsSampling.ts and memoryLimitPolicy.ts.
 */
import { Effect, Fiber, Option, type Stream, SubscriptionRef } from "effect"
import { makeClusterHost } from "../cluster/ClusterHost"
import { Paths } from "../shared/Paths"
import type { AppDefinition } from "../domain/AppDefinition"
import type { InsufficientResources, InvalidConfig, PortInUse, ProcessAlreadyExists } from "../domain/errors"
import { settleMemorySoon } from "../daemon/settleMemory"
import { EventBus } from "../events/EventBus"
import { LogStore } from "../logs/LogStore"
import { MetricsSampler } from "../monitor/MetricsSampler"
import { SamplingDemand } from "../monitor/SamplingDemand"
import { haltAll } from "./bulkOrder"
import type { EngineSnapshot } from "./EngineSnapshot"
import { EngineOptions } from "./EngineOptions"
import { makeLogFaces } from "./logFaces"
import { runMetricsSampling } from "./metricsSampling"
import { makeProcessOperations } from "./processOperations"
import { makeProcessTable } from "./processTable"
import { makeProcessViews, summaries } from "./processViews"
import { makeRedefine } from "./redefineApp"
import { makeReloadApp } from "./reloadApp"
import type { Row, RowState } from "./Row"
import { makeRowLifecycle } from "./rowLifecycle"
import { Spawner } from "./Spawner"
import { StdioPipes } from "./StdioPipes"
import type { StartError, SupervisorContext } from "./Supervisor"
import { restoreInto, snapshotOf } from "./tableSnapshot"
import { makeDetachedFork } from "./detachedFork"

export type { AppView } from "./processViews"
export type { ReloadResult } from "./processOperations"
export type { RedefineOptions, RedefineResult } from "./redefineApp"
export type { RunOptions, RuntimePortOption } from "./runOptions"

export type CreateError = ProcessAlreadyExists | PortInUse | InsufficientResources | InvalidConfig | StartError

export class ProcessManager extends Effect.Service<ProcessManager>()("pmfx/ProcessManager", {
  scoped: Effect.gen(function* () {
    const paths = yield* Paths
    const logs = yield* LogStore
    const bus = yield* EventBus
    const sampler = yield* MetricsSampler
    const settings = yield* EngineOptions
    const pipes = yield* StdioPipes
    const spawner = yield* Spawner
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
      // And the heap a burst of spawns grew is given back once they stop (daemon/settleMemory.ts).
      spawned: () => Effect.zipRight(Effect.sync(settleMemorySoon), onSpawned),
      cluster: makeClusterHost(() => handingOff),
      spawner
    }

    const table = yield* makeProcessTable(settings.firstId)
    const lifecycle = makeRowLifecycle({
      table,
      bus,
      home: paths.home,
      dependencyTimeoutMs: settings.dependencyTimeoutMs,
      context,
      fork: yield* makeDetachedFork(scope)
    })
    const reloadApp = makeReloadApp({ table, bus, lifecycle, readyTimeoutMs: settings.dependencyTimeoutMs })
    const redefine = makeRedefine({ table, bus, home: paths.home, lifecycle, reloadApp, summaries })
    const shutdown = haltAll(table, lifecycle.halt)

    yield* runMetricsSampling({ table, sampler, bus }, yield* SamplingDemand)

    // Runs first when the engine closes: the apps of a dependency level stop at once, dependents first.
    yield* Effect.addFinalizer(shutdown)

    return {
      ...makeProcessOperations({ table, bus, home: paths.home, lifecycle, reloadApp }),

      redefine,

      ...makeProcessViews(table, paths.home),

      ...makeLogFaces(table, logs, bus, paths.home),

      /** Everything needed to bring the table back after a restart of the host (see EngineSnapshot). */
      snapshot: (): Effect.Effect<EngineSnapshot> => snapshotOf(table),

      /**
       * Puts saved apps back with their ids, ports and restart counts, and starts the rows the user
       * wanted running. Apps whose name is already in the table are skipped. A row that cannot
       * start ends `errored`; the restore itself does not fail.
       */
      restore: restoreInto(table, lifecycle, bus),

      /**
       * Lets go of every row while its process keeps running, for a successor host that adopts
       * them (`pmfx daemon restart`): the supervisors end, the log streams hand off (nothing read
       * is lost), and each row keeps its pid and FIFOs for the last snapshot.
       */
      handOver: () =>
        Effect.suspend(() => {
          handingOff = true
          return Effect.forEach(
            table.allRows(),
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
      shutdown,

      /** The id the next new row will get. */
      nextId: () => Effect.sync(() => table.nextId()),

      /** Internal row access for the log and metrics faces. */
      rowsFor: (target: string) => table.resolve(target),
      lastPidsOf: (id: number) => table.lastPids.get(id) ?? [],
      /** The definition a row runs (alerts read its per-app thresholds); none once it is deleted. */
      definitionOf: (id: number): Option.Option<AppDefinition> =>
        Option.map(Option.fromNullable(table.rows.get(id)), (row) => row.app.definition),
      rowState: (row: Row) => SubscriptionRef.get(row.state),
      /** State changes of a row, for waiting in tests and faces. */
      changes: (row: Row) => row.state.changes as Stream.Stream<RowState>
    }
  })
}) {}
