/**
 * Health checks of one running process (docs/configuration.md, health_check): probes by HTTP or
 * script, the row's health state and `HealthChanged` events, and a restart request once it is
 * unhealthy. Runs in the scope of one run of the row (Supervisor.ts).
 */
import { Clock, Duration, Effect, SubscriptionRef } from "effect"
import { PORT_TOKEN } from "../config/appSettingChecks"
import type { AppDefinition } from "../domain/AppDefinition"
import type { HealthStatus } from "../domain/ProcessSummary"
import type { EventBus } from "../events/EventBus"
import { httpProbe, scriptProbe } from "../monitor/healthProbe"
import type { HealthState, Row } from "./Row"
import { updateRow } from "./rowState"

/** How often a starting process is probed until it answers (at most; `interval` when shorter). */
const QUICK_PROBE_MS = 500

const setHealth = (row: Row, bus: EventBus, health: HealthState) =>
  Effect.gen(function* () {
    const previous = (yield* SubscriptionRef.get(row.state)).health.status
    yield* updateRow(row, bus, () => ({ health }))
    if (previous !== health.status) {
      yield* bus.publish({
        _tag: "HealthChanged",
        id: row.id,
        name: row.app.definition.name,
        instance: row.instance,
        status: health.status,
        previous_status: previous,
        failures: health.failures,
        detail: health.detail ?? ""
      })
    }
  })

/**
 * Health checks of one process (docs/architecture.md §4). While it is starting, probes run every 500 ms so it
 * turns online as soon as it answers, but a failure only *counts* once per `interval` — a slow
 * starter gets `retries × interval` to come up. Once online, one probe per `interval`. `retries`
 * counted failures in a row mark it unhealthy and ask for a restart.
 */
export const healthLoop = (row: Row, app: AppDefinition, env: Readonly<Record<string, string>>, bus: EventBus) =>
  Effect.gen(function* () {
    const check = app.health_check!
    const state = yield* SubscriptionRef.get(row.state)
    const port = state.portOverride ?? state.port
    const probe =
      check.check_type === "http" && check.url !== null
        ? httpProbe(check.url.replaceAll(PORT_TOKEN, String(port ?? "")), check.timeout)
        : scriptProbe(check.script ?? "", { cwd: app.cwd, env, timeoutMs: check.timeout })
    let failures = 0
    let lastCounted = yield* Clock.currentTimeMillis
    for (;;) {
      const result = yield* probe
      const now = yield* Clock.currentTimeMillis
      const state = yield* SubscriptionRef.get(row.state)
      const starting = state.status === "starting"
      let status: HealthStatus = state.health.status
      if (result.healthy) {
        failures = 0
        status = "healthy"
      } else if (!starting || now - lastCounted >= check.interval) {
        failures++
        lastCounted = now
        if (failures >= check.retries) status = "unhealthy"
      }
      yield* setHealth(row, bus, {
        status,
        last_check: new Date(now).toISOString(),
        response_time: result.response_time,
        failures,
        detail: result.detail
      })
      if (status === "unhealthy") {
        row.requests.offer("health")
        return
      }
      const stillStarting = (yield* SubscriptionRef.get(row.state)).status === "starting"
      yield* Effect.sleep(
        Duration.millis(stillStarting && !result.healthy ? Math.min(QUICK_PROBE_MS, check.interval) : check.interval)
      )
    }
  })
