/**
 * `redefine`: gives an app a new definition and runs it (docs/api.md, `POST /api/apply`). Paths
 * and ports of the new definition are checked first (a failure changes nothing); the instance
 * count changes as `scale` changes it; then the rows restart, reload, or keep it for their next start.
 */
import { Effect, SubscriptionRef } from "effect"
import { isDeepStrictEqual } from "node:util"
import type { AppDefinition } from "../domain/AppDefinition"
import { PortInUse } from "../domain/errors"
import type { ProcessSummary } from "../domain/ProcessSummary"
import type { EventBus } from "../events/EventBus"
import { checkAppPaths } from "./checkAppPaths"
import { assignPorts } from "./PortAllocator"
import { isPortFree } from "./portProbe"
import type { ProcessTable } from "./processTable"
import { hasHealthCheck, initialHealth, initialRowState, type Row } from "./Row"
import type { RowLifecycle } from "./rowLifecycle"
import type { makeReloadApp } from "./reloadApp"
import { updateRow } from "./Supervisor"

export interface RedefineOptions {
  /** The starting environment to keep from now on (`update_env`); the app keeps its own without it. */
  readonly baseEnv?: Readonly<Record<string, string>> | undefined
  /** restart: all rows at once; reload: one at a time (one instance: restarted); keep: only stored, for an app with nothing running. */
  readonly run: "restart" | "reload" | "keep"
}

export interface RedefineResult {
  readonly rows: ReadonlyArray<ProcessSummary>
  /** A reload of an app that cannot reload (one instance, or a cluster whose program changed) restarted it. */
  readonly restartedInstead: boolean
}

/** Settings a cluster primary is started with: a change means a new primary (ClusterHost). */
const PRIMARY_SETTINGS = [
  "script",
  "args",
  "interpreter",
  "interpreter_args",
  "source_map_support",
  "cwd",
  "user",
  "group",
  "umask",
  "exec_mode"
] as const

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

export interface RedefineDeps {
  readonly table: ProcessTable
  readonly bus: EventBus
  readonly home: string
  readonly lifecycle: RowLifecycle
  readonly reloadApp: ReturnType<typeof makeReloadApp>
  readonly summaries: (selected: ReadonlyArray<Row>) => Effect.Effect<Array<ProcessSummary>>
}

export const makeRedefine = ({ table, bus, home, lifecycle, reloadApp, summaries }: RedefineDeps) => {
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
      const held = yield* table.heldPorts(own)
      const mine = new Map<number, number>()
      for (const row of appRows) {
        const state = yield* SubscriptionRef.get(row.state)
        if (state.port !== null) mine.set(row.instance, state.port)
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
        const taken = new Set([...held, ...kept.filter((p) => p !== undefined)])
        const fresh = [...(yield* assignPorts(setting, missing.length, taken, definition.name))]
        ports = kept.map((port) => port ?? fresh.shift()!)
      } else {
        const all = yield* assignPorts(setting, slots, held, definition.name, { bindTest: false })
        for (const i of missing) if (!ownPorts.has(all[i]!)) yield* ensurePortFree(all[i]!, definition.name)
        ports = kept.map((port, i) => port ?? all[i]!)
      }
      return cluster ? Array.from({ length: count }, () => ports[0]!) : [...ports]
    })

  /**
   * Gives an app a new definition and runs it: a smaller `instances` removes the highest
   * instances, a larger one adds rows with new ids; then every row restarts, reloads one at a
   * time, or — `keep`, for an app with nothing running — only takes the definition for its next start.
   */
  return (definition: AppDefinition, options: RedefineOptions) =>
    table.withAppLock(
      definition.name,
      Effect.gen(function* () {
        const name = definition.name
        const current = table.rowsOfApp(name).filter((row) => row.removed !== true)
        if (current.length === 0) return yield* table.deletedMeanwhile(name)
        yield* checkAppPaths([definition], home)
        const previous = current[0]!.app
        const ports = yield* portsUnder(definition, current)
        const record = table.appRecord(definition, options.baseEnv ?? previous.baseEnv)
        // A cluster primary runs the program it was started with: every worker stops first, so
        // the next one starts a new primary with the new program.
        const primaryChanged =
          previous.definition.exec_mode === "cluster" &&
          PRIMARY_SETTINGS.some((key) => !isDeepStrictEqual(previous.definition[key], definition[key]))
        if (primaryChanged && options.run !== "keep") {
          yield* Effect.forEach(current, lifecycle.halt, { concurrency: "unbounded", discard: true })
        }
        // The instance count changes as `scale` changes it (scaleApp.ts), with the ports above.
        const dropped = current
          .filter((row) => row.instance >= definition.instances)
          .sort((a, b) => b.instance - a.instance)
        if (dropped.length > 0) yield* lifecycle.scaleTable.removeRows(dropped)
        const kept = current.filter((row) => row.instance < definition.instances)
        for (const row of kept) row.app = record
        const have = new Set(kept.map((row) => row.instance))
        const missing = Array.from({ length: definition.instances }, (_, instance) => instance).filter(
          (instance) => !have.has(instance)
        )
        const added = yield* lifecycle.scaleTable.addRows((id) =>
          Effect.forEach(missing, (instance) =>
            table.makeRow(id(), instance, record, initialRowState(ports[instance] ?? null, hasHealthCheck(definition)))
          )
        )
        const appRows = [...kept, ...added].sort((a, b) => a.instance - b.instance)
        const rowPorts = appRows.map((row) => ports[row.instance] ?? null)
        yield* bus.publish({ _tag: "TableChanged" })
        if (options.run === "keep") {
          for (const [i, row] of appRows.entries()) {
            yield* updateRow(row, bus, () => ({
              port: rowPorts[i] ?? null,
              portOverride: null,
              health: initialHealth(hasHealthCheck(definition))
            }))
          }
          return { rows: yield* summaries(appRows), restartedInstead: false } satisfies RedefineResult
        }
        if (options.run === "reload" && !primaryChanged) {
          const restartedInstead = yield* reloadApp(name, appRows, { basePorts: rowPorts })
          const now = appRows.map((row) => table.rows.get(row.id) ?? row)
          return { rows: yield* summaries(now), restartedInstead } satisfies RedefineResult
        }
        yield* lifecycle.restartApp(name, appRows, { basePorts: rowPorts })
        return { rows: yield* summaries(appRows), restartedInstead: options.run === "reload" } satisfies RedefineResult
      })
    )
}
