/**
 * Built-in alert conditions (docs/architecture.md §9). Watches the `EventBus` and publishes `Alert` events on
 * the same bus (the WebSocket and `Webhooks` pick them up there):
 *
 * - `process_crash`: a `ProcessExit` with `abnormal: true`.
 * - `high_memory`: a row's sampled memory above `alerts.memory` — once per crossing, re-armed
 *   when a sample falls to or below the threshold again. Off unless a threshold is set.
 * - `cpu_threshold`: cpu_usage above `cpu_percent` in every sample for `cpu_duration` (default
 *   30 s) — once per episode (re-armed by a sample at or below). Off unless `cpu_percent` is set.
 * - `restart_loop`: `restart_loop.restarts` (default 5) automatic restarts (crash, memory or
 *   health) within `restart_loop.window` (default 60 s) — at most once per window.
 * - `health_check_failure`: `HealthChanged` to `unhealthy`.
 *
 * Thresholds: the app's own `alerts` key by key over the global rules (`setGlobalRules`, which the
 * daemon fills from state.json and from an ecosystem file's top-level `alerts`; `changes` tells
 * the daemon's StateStore to save them).
 */
import { Clock, Effect, Option, Queue, Stream, SubscriptionRef } from "effect"
import type { AlertRules } from "../domain/AppDefinition"
import { formatDuration } from "../domain/Duration"
import { distinctSizes } from "../domain/Size"
import { SamplingDemand } from "../monitor/SamplingDemand"
import { ProcessManager } from "../supervisor/ProcessManager"
import { EventBus } from "./EventBus"
import type { AlertKind, PmfxEvent, RowRef } from "./PmfxEvent"

export const alertDefaults = {
  cpu_duration: 30_000,
  restart_loop: { restarts: 5, window: 60_000 }
} as const

/** Reasons that count towards a restart loop: the ones the engine decided on its own. */
const AUTOMATIC_RESTARTS: ReadonlySet<string> = new Set(["crash", "memory", "health"])

interface RowAlertState {
  memoryFired: boolean
  cpuSince: number | null
  cpuFired: boolean
  restarts: Array<number>
  loopFiredAt: number | null
}

const freshState = (): RowAlertState => ({
  memoryFired: false,
  cpuSince: null,
  cpuFired: false,
  restarts: [],
  loopFiredAt: null
})

/** How long, for a message: whole seconds (as a duration setting is written) from 1 s on. */
const roughDuration = (ms: number): string => (ms < 1000 ? `${ms}ms` : formatDuration(Math.round(ms / 1000) * 1000))

export class Alerts extends Effect.Service<Alerts>()("pmfx/Alerts", {
  scoped: Effect.gen(function* () {
    const bus = yield* EventBus
    const manager = yield* ProcessManager
    const demand = yield* SamplingDemand
    const globalRules = yield* SubscriptionRef.make<AlertRules>({})
    const rows = new Map<number, RowAlertState>()
    const stateOf = (id: number) => {
      let state = rows.get(id)
      if (state === undefined) {
        state = freshState()
        rows.set(id, state)
      }
      return state
    }

    /** The app's rules key by key over the global ones. */
    const rulesFor = (id: number, global: AlertRules): AlertRules => {
      const own = Option.flatMapNullable(manager.definitionOf(id), (definition) => definition.alerts)
      if (Option.isNone(own)) return global
      const merged: Record<string, unknown> = { ...global }
      for (const [key, value] of Object.entries(own.value)) if (value !== undefined) merged[key] = value
      return merged as AlertRules
    }

    const raise = (row: RowRef, kind: AlertKind, message: string, data: Record<string, unknown>, now: number) =>
      bus.publish({
        _tag: "Alert",
        id: row.id,
        name: row.name,
        instance: row.instance,
        kind,
        message,
        data,
        timestamp: new Date(now).toISOString()
      })

    const handle = (event: PmfxEvent): Effect.Effect<void> =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        switch (event._tag) {
          case "ProcessExit": {
            if (!event.abnormal) return
            const how =
              event.signal !== null
                ? ` with signal ${event.signal}`
                : event.exit_code !== null
                  ? ` with code ${event.exit_code}`
                  : ""
            yield* raise(
              event,
              "process_crash",
              `${event.name} (id ${event.id}) crashed: exited${how}`,
              {
                pid: event.pid,
                exit_code: event.exit_code,
                signal: event.signal,
                uptime_ms: event.uptime_ms
              },
              now
            )
            return
          }
          case "HealthChanged": {
            if (event.status !== "unhealthy" || event.previous_status === "unhealthy") return
            yield* raise(
              event,
              "health_check_failure",
              `${event.name} (id ${event.id}) is unhealthy: ${event.detail}`,
              {
                failures: event.failures,
                detail: event.detail,
                previous_status: event.previous_status
              },
              now
            )
            return
          }
          case "ProcessRestart": {
            if (!AUTOMATIC_RESTARTS.has(event.reason)) return
            const rules =
              rulesFor(event.id, yield* SubscriptionRef.get(globalRules)).restart_loop ?? alertDefaults.restart_loop
            const state = stateOf(event.id)
            state.restarts = state.restarts.filter((at) => now - at < rules.window)
            state.restarts.push(now)
            const quiet = state.loopFiredAt === null || now - state.loopFiredAt >= rules.window
            if (state.restarts.length >= rules.restarts && quiet) {
              state.loopFiredAt = now
              state.restarts = []
              yield* raise(
                event,
                "restart_loop",
                `${event.name} (id ${event.id}) restarted ${rules.restarts} times within ${formatDuration(rules.window)}`,
                {
                  restarts: event.restarts,
                  threshold: rules.restarts,
                  window_ms: rules.window,
                  last_reason: event.reason
                },
                now
              )
            }
            return
          }
          case "MetricsSample": {
            const global = yield* SubscriptionRef.get(globalRules)
            for (const sample of event.processes) {
              const rules = rulesFor(sample.id, global)
              const state = stateOf(sample.id)
              if (rules.memory !== undefined) {
                if (sample.memory_usage > rules.memory) {
                  if (!state.memoryFired) {
                    state.memoryFired = true
                    const [used, threshold] = distinctSizes(sample.memory_usage, rules.memory)
                    yield* raise(
                      sample,
                      "high_memory",
                      `${sample.name} (id ${sample.id}) uses ${used}, above ${threshold}`,
                      {
                        pid: sample.pid,
                        memory_usage: sample.memory_usage,
                        threshold: rules.memory
                      },
                      now
                    )
                  }
                } else state.memoryFired = false
              }
              if (rules.cpu_percent !== undefined) {
                const duration = rules.cpu_duration ?? alertDefaults.cpu_duration
                if (sample.cpu_usage > rules.cpu_percent) {
                  state.cpuSince ??= now
                  if (!state.cpuFired && now - state.cpuSince >= duration) {
                    state.cpuFired = true
                    yield* raise(
                      sample,
                      "cpu_threshold",
                      `${sample.name} (id ${sample.id}) above ${rules.cpu_percent}% CPU for ${roughDuration(now - state.cpuSince)} (now ${sample.cpu_usage}%)`,
                      {
                        pid: sample.pid,
                        cpu_usage: sample.cpu_usage,
                        threshold: rules.cpu_percent,
                        duration_ms: duration
                      },
                      now
                    )
                  }
                } else {
                  state.cpuSince = null
                  state.cpuFired = false
                }
              }
            }
            return
          }
          case "TableChanged": {
            for (const id of [...rows.keys()]) if (Option.isNone(manager.definitionOf(id))) rows.delete(id)
            return
          }
          default:
            return
        }
      })

    // Subscribe before the constructor returns, so nothing published after the layer is built is missed.
    const queue = yield* bus.subscribe()
    yield* Queue.take(queue).pipe(
      Effect.flatMap(handle),
      Effect.catchAllCause((cause) => Effect.logError("alert evaluation failed", cause)),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      /** Replaces the global thresholds (the daemon's settings, or an ecosystem file's top-level `alerts`). */
      setGlobalRules: (rules: AlertRules | null) =>
        SubscriptionRef.set(globalRules, rules ?? {}).pipe(
          // Metric thresholds act on samples: keep them at the full rate (src/monitor/SamplingDemand.ts).
          Effect.zipRight(
            demand.setStanding(
              "global alert thresholds",
              rules?.memory !== undefined || rules?.cpu_percent !== undefined
            )
          )
        ),
      globalRules: () => SubscriptionRef.get(globalRules),
      /** One element per change of the global rules (not the current value on subscribing). */
      changes: globalRules.changes.pipe(Stream.drop(1), Stream.as(undefined))
    }
  })
}) {}
