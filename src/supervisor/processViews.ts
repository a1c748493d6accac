/**
 * Read models of the process table (docs/api.md): summaries (`list`), the detail of one row
 * (`show`), its metrics, its environment, an app as the table holds it, and waiting until rows
 * are ready. Nothing here changes a row.
 */
import { definitionSource, lastExitOf, listedPort } from "./detailExtras"
import { Clock, Duration, Effect, Option, SubscriptionRef } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { nextRunOf } from "../domain/cronSchedule"
import { formatUptime } from "../domain/Duration"
import { ReadyTimeout } from "../domain/errors"
import { instanceFiles } from "../domain/logPaths"
import type { ProcessDetail } from "../domain/ProcessDetail"
import type { ProcessMetrics } from "../domain/ProcessMetrics"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { readMemoryDetail } from "../monitor/memoryDetail"
import { instanceEnvironmentOf } from "./instanceEnv"
import type { ProcessTable } from "./processTable"
import type { Row, RowState } from "./Row"
import { isReady } from "./rowLifecycle"
import { currentFigures } from "./RowMetrics"
import { awaitRow } from "./Supervisor"

/** One app as `ProcessManager.app` shows it. */
export interface AppView {
  readonly definition: AppDefinition
  readonly baseEnv: Readonly<Record<string, string>>
  readonly rows: ReadonlyArray<ProcessSummary>
}

export const summaryOf = (row: Row, state: RowState, now: number): ProcessSummary => {
  const port = state.portOverride ?? state.port
  const alive = state.pid !== null && state.startedAt !== null
  const figures = currentFigures(row.metrics, state)
  return {
    id: row.id,
    name: row.app.definition.name,
    namespace: row.app.definition.namespace,
    instance: row.instance,
    status: state.status,
    pid: state.pid,
    port: listedPort(row.app.definition, port, row.instance),
    cpu_usage: figures.cpu,
    memory_usage: figures.memory,
    uptime: formatUptime(alive ? now - state.startedAt! : 0),
    restarts: state.restarts,
    health_status: state.health.status,
    config_file: row.app.definition.config_file
  }
}

/** The summaries of `selected`, as their states are now. */
export const summaries = (selected: ReadonlyArray<Row>) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const out: Array<ProcessSummary> = []
    for (const row of selected) out.push(summaryOf(row, yield* SubscriptionRef.get(row.state), now))
    return out
  })

export const makeProcessViews = (table: ProcessTable, home: string) => {
  const detailOf = (row: Row, state: RowState, now: number): ProcessDetail => {
    const app = row.app.definition
    const files = instanceFiles(app, row.instance, home)
    const check = app.health_check
    return {
      ...summaryOf(row, state, now),
      app_instances: table.rowsOfApp(app.name).map((r) => r.id),
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
      cron_restart:
        app.cron_restart === null ? null : { schedule: app.cron_restart, next_run: nextRunOf(app.cron_restart, now) },
      last_exit: lastExitOf(state.lastExit)
    }
  }

  return {
    /** An app as the table holds it now (its definition, starting environment and rows), if it exists. */
    app: (name: string) =>
      Effect.suspend(() => {
        const appRows = table.rowsOfApp(name).filter((row) => row.removed !== true)
        if (appRows.length === 0) return Effect.succeed(Option.none<AppView>())
        return Effect.map(summaries(appRows), (summaryRows) =>
          Option.some<AppView>({
            definition: appRows[0]!.app.definition,
            baseEnv: appRows[0]!.app.baseEnv,
            rows: summaryRows
          })
        )
      }),

    /** The environment of the lowest id the target names: its process's, or its next start's (instanceEnv.ts). */
    environment: (target: string) =>
      Effect.gen(function* () {
        const row = yield* table.firstOf(target)
        const state = yield* SubscriptionRef.get(row.state)
        const found = yield* instanceEnvironmentOf(row.app, row.instance, state.pid, state.portOverride ?? state.port)
        return { id: row.id, name: row.app.definition.name, instance: row.instance, ...found }
      }),

    list: () => Effect.suspend(() => summaries(table.allRows())),

    /** The rows a target names (for callers that filter further). */
    resolve: (target: string) => Effect.flatMap(table.resolve(target), summaries),

    /** Detail of the lowest id the target names (docs/api.md). */
    get: (target: string) =>
      Effect.gen(function* () {
        const row = yield* table.firstOf(target)
        const now = yield* Clock.currentTimeMillis
        return detailOf(row, yield* SubscriptionRef.get(row.state), now)
      }),

    /** Completes when every row is online (and healthy with a check); READY_TIMEOUT otherwise. */
    waitReady: (target: string, timeoutMs: number) =>
      Effect.gen(function* () {
        const selected = yield* table.resolve(target)
        const startedAt = yield* Clock.currentTimeMillis
        const settled = yield* Effect.forEach(
          selected,
          (row) =>
            awaitRow(row, (state) => isReady(row, state) || state.status === "errored" || state.status === "stopped"),
          { concurrency: "unbounded" }
        ).pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))
        const waited = (yield* Clock.currentTimeMillis) - startedAt
        if (Option.isSome(settled) && selected.every((row, i) => isReady(row, settled.value[i]!)))
          return yield* summaries(selected)
        const states: Record<string, string> = {}
        for (const row of selected) states[String(row.id)] = (yield* SubscriptionRef.get(row.state)).status
        const notReady = Object.entries(states).filter(([, status]) => status !== "online")
        const why = notReady.map(([id, status]) => `row ${id} is ${status}`).join(", ") || "a health check is failing"
        return yield* new ReadyTimeout({
          message: Option.isNone(settled)
            ? `${target} was not ready after ${Math.round(waited / 1000)}s`
            : `${target} will not become ready: ${why}`,
          details: { process_id: target, waited_ms: waited, states }
        })
      }),

    /** CPU, detailed memory, uptime, restarts, errors and the recent history of one row (docs/api.md). */
    metrics: (target: string) =>
      Effect.gen(function* () {
        const row = yield* table.firstOf(target)
        const state = yield* SubscriptionRef.get(row.state)
        const now = yield* Clock.currentTimeMillis
        const pids = state.pid === null ? [] : (table.lastPids.get(row.id) ?? [state.pid])
        const memory = yield* readMemoryDetail(pids)
        const uptimeMs = state.pid !== null && state.startedAt !== null ? now - state.startedAt : 0
        return {
          id: row.id,
          name: row.app.definition.name,
          instance: row.instance,
          pid: state.pid,
          cpu_usage: currentFigures(row.metrics, state).cpu,
          memory,
          uptime_ms: uptimeMs,
          uptime: formatUptime(uptimeMs),
          restarts: state.restarts,
          errors: state.errors,
          history: row.metrics.history
        } satisfies ProcessMetrics
      })
  }
}
