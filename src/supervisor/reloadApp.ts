/**
 * `reload` of an app (docs/architecture.md §4): one instance at a time, each waiting for its
 * replacement to be ready, so the others keep serving; an app with one instance is restarted.
 * The caller holds the app's lock.
 */
import { Duration, Effect, Either, Option, SubscriptionRef } from "effect"
import { ProcessStartFailed } from "../domain/errors"
import type { EventBus } from "../events/EventBus"
import { assignPorts } from "./PortAllocator"
import type { ProcessTable } from "./processTable"
import { hasHealthCheck, initialRowState, type Row } from "./Row"
import { isLive, isReady, type RowLifecycle } from "./rowLifecycle"
import { overridePorts, ownPort, refreshEnvironment, type RunOptions } from "./runOptions"
import { awaitRow } from "./Supervisor"

export interface ReloadDeps {
  readonly table: ProcessTable
  readonly bus: EventBus
  readonly lifecycle: RowLifecycle
  /** How long a replacement may take to become ready (the dependency timeout). */
  readonly readyTimeoutMs: number
}

export const makeReloadApp = ({ table, bus, lifecycle, readyTimeoutMs }: ReloadDeps) => {
  const { halt, launch } = lifecycle

  /** Waits until a reloaded row is ready; PROCESS_START_FAILED when it will not be (in time). */
  const awaitReplacement = (row: Row, name: string, failOnExit: boolean) =>
    Effect.gen(function* () {
      // A replacement started beside the old process (replaceFirst) that exits before it is
      // ready ends the reload at once, and the old one keeps serving: waiting for its restarts
      // to reach `errored` would take a minute of backoff to say the same.
      const ready = yield* awaitRow(
        row,
        (s) =>
          isReady(row, s) ||
          s.status === "errored" ||
          s.status === "stopped" ||
          (failOnExit && s.status === "restarting")
      ).pipe(Effect.timeoutOption(Duration.millis(readyTimeoutMs)))
      if (Option.isNone(ready) || !isReady(row, ready.value)) {
        const exit = Option.isSome(ready) ? ready.value.lastExit : null
        const reason = Option.isNone(ready)
          ? `instance ${row.instance} did not become ready in time`
          : exit !== null
            ? `instance ${row.instance} exited (${exit.signal !== null ? `killed by ${exit.signal}` : `code ${exit.code}`}) before it was ready`
            : `instance ${row.instance} is ${ready.value.status}`
        return yield* new ProcessStartFailed({
          message: `reload of ${name} stopped: ${reason}`,
          details: {
            process_id: name,
            reason,
            suggestion: `the remaining instances still run the old version; check \`pmfx logs ${name}\``
          }
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
      const held = yield* table.heldPorts()
      // A cluster worker's replacement listens on the same port (the primary shares it).
      const [port] =
        row.app.definition.exec_mode === "cluster"
          ? [newPort !== undefined ? newPort : (current.portOverride ?? current.port)]
          : yield* assignPorts(row.app.definition.port!, 1, held, name)
      const replacement = yield* table.makeRow(row.id, row.instance, row.app, {
        ...initialRowState(port ?? null, hasHealthCheck(row.app.definition)),
        restarts: current.restarts + 1,
        errors: current.errors,
        desired: current.desired
      })
      const started = yield* Effect.either(
        Effect.zipRight(launch(replacement), awaitReplacement(replacement, name, true))
      )
      if (Either.isLeft(started)) {
        replacement.retired = true
        replacement.removed = true
        yield* halt(replacement)
        return yield* Effect.fail(started.left)
      }
      table.rows.set(row.id, replacement)
      row.retired = true
      row.removed = true
      yield* halt(row)
      yield* bus.publish({
        _tag: "ProcessRestart",
        id: row.id,
        name,
        instance: row.instance,
        reason: "reload",
        restarts: current.restarts + 1
      })
    })

  /**
   * Reloads one app's rows (the caller holds the app's lock): one instance at a time, each
   * waiting for its replacement; an app with one instance is restarted instead (returns true).
   */
  const reloadApp = (name: string, appRows: ReadonlyArray<Row>, options: RunOptions) =>
    Effect.gen(function* () {
      const cluster = appRows[0]!.app.definition.exec_mode === "cluster"
      if (appRows.length === 1 && !cluster) {
        yield* lifecycle.restartApp(name, appRows, options)
        return true
      }
      const ports = options.port === undefined ? undefined : yield* overridePorts(table, options.port, appRows)
      refreshEnvironment(table, appRows, options)
      yield* lifecycle.want(appRows, "running")
      yield* Effect.forEach(
        appRows,
        (row, i) =>
          Effect.gen(function* () {
            // One instance at a time: the others keep serving while this one is replaced.
            const wasRunning = isLive(row, yield* SubscriptionRef.get(row.state))
            // Replacement first: an auto: port takes a new port; a cluster worker shares the app's.
            if (
              wasRunning &&
              ports === undefined &&
              (cluster || row.app.definition.port?.startsWith("auto:") === true)
            ) {
              return yield* replaceFirst(row, name, options.basePorts?.[i])
            }
            yield* halt(row)
            yield* launch(row, (state) => ({
              restarts: state.restarts + (wasRunning ? 1 : 0),
              portOverride: ports?.[i] ?? null,
              ...ownPort(options, i)
            }))
            const state = yield* SubscriptionRef.get(row.state)
            yield* bus.publish({
              _tag: "ProcessRestart",
              id: row.id,
              name,
              instance: row.instance,
              reason: "reload",
              restarts: state.restarts
            })
            yield* awaitReplacement(row, name, false)
          }),
        { discard: true }
      )
      return false
    })

  return reloadApp
}
