/**
 * `scale`: changes an app's instance count live (docs/cli.md, `pmfx scale`). New instances take
 * the next instance indexes and the next ports of the app's `port` setting (a range gives
 * first+i, an `auto:` range the next free ports, a cluster app's workers share its port); removed
 * instances stop gracefully, highest index first, and leave the table. The new count is written
 * into the app's definition, so `show`, the saved state and a daemon restart keep it.
 */
import { Effect, Either, SubscriptionRef } from "effect"
import { MAX_INSTANCES } from "../domain/AppDefinition"
import { type InsufficientResources, InvalidConfig, PortInUse } from "../domain/errors"
import { parsePort, portCount } from "../domain/Port"
import { assignPorts } from "./PortAllocator"
import { isPortFree } from "./portProbe"
import type { AppRecord, Row, RowState } from "./Row"
import { hasHealthCheck, initialRowState } from "./Row"

/** An absolute count (`3`) or a change of the current one (`{ by: -1 }`). */
export type ScaleCount = number | { readonly by: number }

export interface ScaleResult {
  readonly from: number
  readonly to: number
  /** Ids of the rows added (started when the app is wanted running). */
  readonly added: ReadonlyArray<number>
  /** Ids of the rows stopped and removed. */
  readonly removed: ReadonlyArray<number>
}

/** What `scale` needs of the process table; ProcessManager provides it. */
export interface ScaleTable {
  /** Every row (ports held by other apps). */
  readonly allRows: () => ReadonlyArray<Row>
  /** A new row object with the given first state (not yet in the table: `addRows` adds it). */
  readonly makeRow: (id: number, instance: number, app: AppRecord, initial: RowState) => Effect.Effect<Row>
  /** The record the rows of an app run (its environment shared with equal ones: sharedEnvironments.ts). */
  readonly appRecord: (definition: AppRecord["definition"], baseEnv: AppRecord["baseEnv"]) => AppRecord
  /** Adds rows under the table lock, each with the next id. */
  readonly addRows: (
    make: (nextId: () => number) => Effect.Effect<ReadonlyArray<Row>>
  ) => Effect.Effect<ReadonlyArray<Row>>
  /** Stops rows one after another, in the order given, and takes them out of the table; returns the ids removed. */
  readonly removeRows: (rows: ReadonlyArray<Row>) => Effect.Effect<ReadonlyArray<number>>
}

const instancesProblem = (name: string, value: number, message: string, suggestion: string) =>
  InvalidConfig.fromProblems([{ field: `${name}.instances`, value, message, suggestion }])

/** The count asked for, checked: 1..MAX_INSTANCES. */
export const targetCount = (name: string, current: number, count: ScaleCount): Either.Either<number, InvalidConfig> => {
  const to = typeof count === "number" ? count : current + count.by
  if (!Number.isInteger(to) || to < 1) {
    return Either.left(
      instancesProblem(
        name,
        to,
        `would be ${to}: an app keeps at least one instance`,
        `use \`pmfx stop ${name}\` or \`pmfx delete ${name}\` to run none`
      )
    )
  }
  if (to > MAX_INSTANCES)
    return Either.left(
      instancesProblem(
        name,
        to,
        `would be ${to}, more than ${MAX_INSTANCES}`,
        `ask for at most ${MAX_INSTANCES} instances`
      )
    )
  return Either.right(to)
}

/** Ports for the instances `from..to-1` of an app whose other rows hold theirs already. */
const portsForNewInstances = (
  app: AppRecord["definition"],
  existing: ReadonlyArray<RowState>,
  from: number,
  to: number,
  held: ReadonlySet<number>
): Effect.Effect<ReadonlyArray<number | null>, PortInUse | InsufficientResources | InvalidConfig> =>
  Effect.gen(function* () {
    const count = to - from
    if (app.port === null) return Array.from({ length: count }, () => null)
    // Cluster workers share the app's one port (its primary listens on it).
    if (app.exec_mode === "cluster") {
      const shared = existing.find((state) => state.port !== null)?.port ?? null
      return Array.from({ length: count }, () => shared)
    }
    const parsed = parsePort(app.port)
    if (Either.isLeft(parsed)) return yield* assignPorts(app.port, count, held, app.name)
    const spec = parsed.right
    if (spec._tag === "Auto") return yield* assignPorts(app.port, count, held, app.name)
    // A fixed port or range: instance i gets first+i, so the range must reach the last instance.
    if (portCount(spec) < to) {
      // assignPorts words the refusal as `create` does (INSUFFICIENT_RESOURCES with the counts).
      return yield* assignPorts(app.port, to, new Set(), app.name, { bindTest: false })
    }
    const first = spec._tag === "Single" ? spec.port : spec.first
    const ports: Array<number> = []
    for (let instance = from; instance < to; instance++) {
      const port = first + instance
      if (held.has(port)) {
        return yield* new PortInUse({
          message: `${app.name}: port ${port} is already assigned to another process`,
          details: { port, suggestion: "choose another port, or stop the process that holds it" }
        })
      }
      if (!(yield* isPortFree(port))) {
        return yield* new PortInUse({
          message: `${app.name}: port ${port} is already in use by another program`,
          details: { port, suggestion: `find it with \`ss -ltnp 'sport = :${port}'\`, or choose another port` }
        })
      }
      ports.push(port)
    }
    return ports
  })

/**
 * Scales one app; the caller holds the app's lock and passes its rows still in the table (at
 * least one). The definition of every row becomes the same record with the new `instances`.
 */
export const scaleApp = <E>(
  table: ScaleTable,
  appRows: ReadonlyArray<Row>,
  count: ScaleCount,
  startRows: (rows: ReadonlyArray<Row>) => Effect.Effect<void, E>
): Effect.Effect<ScaleResult, E | PortInUse | InsufficientResources | InvalidConfig> =>
  Effect.gen(function* () {
    const sorted = [...appRows].sort((a, b) => a.instance - b.instance)
    const definition = sorted[0]!.app.definition
    const name = definition.name
    const from = sorted.length
    const to = yield* targetCount(name, from, count)
    const record = table.appRecord({ ...definition, instances: to }, sorted[0]!.app.baseEnv)
    if (to === from) {
      for (const row of sorted) row.app = record
      return { from, to, added: [], removed: [] }
    }
    if (to < from) {
      // Highest index first, one after another: the lower instances keep serving meanwhile.
      const leaving = sorted.slice(to).reverse()
      const removed = yield* table.removeRows(leaving)
      for (const row of sorted.slice(0, to)) row.app = record
      return { from, to, added: [], removed }
    }
    const states: Array<RowState> = []
    for (const row of sorted) states.push(yield* SubscriptionRef.get(row.state))
    const own = new Set(sorted.map((row) => row.id))
    const held = new Set<number>()
    for (const row of table.allRows()) {
      if (own.has(row.id) && definition.exec_mode === "cluster") continue
      const state = yield* SubscriptionRef.get(row.state)
      for (const port of [state.port, state.portOverride]) if (port !== null) held.add(port)
    }
    const ports = yield* portsForNewInstances(definition, states, from, to, held)
    const desired: RowState["desired"] = states.some((state) => state.desired === "running") ? "running" : "stopped"
    const added = yield* table.addRows((nextId) =>
      Effect.forEach(ports, (port, i) =>
        table.makeRow(nextId(), from + i, record, {
          ...initialRowState(port, hasHealthCheck(record.definition)),
          desired
        })
      )
    )
    for (const row of sorted) row.app = record
    if (desired === "running") yield* startRows(added)
    return { from, to, added: added.map((row) => row.id), removed: [] }
  })
