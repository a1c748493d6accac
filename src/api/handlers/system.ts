/** Handlers of `GET /`, `/api/system`, `/api/status`, `/api/system/stats`, `/health` and the daemon routes. */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Deferred, Effect, Ref } from "effect"
import * as os from "node:os"
import packageJson from "../../../package.json"
import { DaemonInfo } from "../../daemon/DaemonInfo"
import { StateStore } from "../../daemon/StateStore"
import type { WebSettings } from "../../daemon/StateFile"
import { WebListener } from "../../daemon/WebListener"
import { formatUptime } from "../../domain/Duration"
import { BadRequest, InternalError } from "../../domain/errors"
import type { ProcessStatus } from "../../domain/ProcessStatus"
import { isRunningStatus, processStatuses } from "../../domain/ProcessStatus"
import { LogStore } from "../../logs/LogStore"
import { SystemStatsReader } from "../../monitor/systemStats"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { PmfxApi } from "../../shared/Api"
import { parseBooleanParam } from "../requestValues"
import { listenerUrl } from "../webGuard"
import { afterResponse } from "../afterResponse"

/**
 * `GET /`'s `endpoints`: one path for each part of the API (docs/api.md §3) — every route group of
 * shared/Api.ts but the record itself and the daemon's control routes (unix socket only), plus
 * the WebSocket, the OpenAPI document and the dashboard, which are served outside those groups.
 */
export const SERVICE_ENDPOINTS = {
  processes: "/api/processes",
  system: "/api/system",
  status: "/api/status",
  websocket: "/ws",
  system_stats: "/api/system/stats",
  health: "/health",
  alerts: "/api/alerts",
  webhook_deliveries: "/api/webhooks/deliveries",
  metrics: "/metrics",
  openapi: "/api/openapi.json",
  dashboard: "/ui/"
} as const

export const ServiceHandlers = HttpApiBuilder.group(PmfxApi, "service", (handlers) =>
  handlers.handle("info", () =>
    Effect.succeed({
      name: "pmfx",
      version: packageJson.version,
      description: packageJson.description,
      status: "running",
      endpoints: SERVICE_ENDPOINTS
    })
  )
)

export const SystemHandlers = HttpApiBuilder.group(PmfxApi, "system", (handlers) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const daemon = yield* DaemonInfo
    const statsReader = yield* SystemStatsReader
    const store = yield* StateStore
    const logs = yield* LogStore
    const uptimeMs = () => Date.now() - daemon.startedAt

    return handlers
      .handle("system", () =>
        Effect.succeed({
          hostname: os.hostname(),
          platform: os.platform(),
          arch: os.arch(),
          release: os.release(),
          cpus: os.availableParallelism(),
          total_memory: os.totalmem(),
          node_version: process.version,
          version: packageJson.version,
          daemon: {
            pid: daemon.pid,
            started_at: new Date(daemon.startedAt).toISOString(),
            uptime: formatUptime(uptimeMs()),
            home: daemon.home,
            rss: process.memoryUsage.rss()
          }
        })
      )
      .handle("status", () =>
        Effect.gen(function* () {
          const rows = yield* manager.list()
          const byStatus = Object.fromEntries(processStatuses.map((status) => [status, 0])) as Record<
            ProcessStatus,
            number
          >
          for (const row of rows) byStatus[row.status]++
          return {
            version: packageJson.version,
            pid: daemon.pid,
            uptime: formatUptime(uptimeMs()),
            uptime_ms: uptimeMs(),
            home: daemon.home,
            socket: daemon.socket,
            processes: { total: rows.length, by_status: byStatus },
            web: yield* Ref.get(daemon.web)
          }
        })
      )
      .handle("stats", () =>
        statsReader.readSystemStats(daemon.home).pipe(
          Effect.catchTag("DiskStatsError", (error) =>
            Effect.logError(`system stats: ${error.reason}`).pipe(
              Effect.zipRight(
                new InternalError({
                  message: "could not read disk statistics",
                  details: { request_id: `stats-${Date.now()}` }
                })
              )
            )
          )
        )
      )
      .handle("health", ({ urlParams }) =>
        Effect.gen(function* () {
          const strict = yield* parseBooleanParam("strict", urlParams.strict)
          const rows = yield* manager.list()
          const snapshot = yield* manager.snapshot()
          const wanted = new Set(
            snapshot.apps.flatMap((app) => app.rows.filter((row) => row.desired === "running").map((row) => row.id))
          )
          const shouldRun = rows.filter((row) => wanted.has(row.id))
          const unhealthy = rows.filter((row) => row.health_status === "unhealthy").length
          const saving = yield* store.status
          const logHealth = logs.health()
          const appsHealthy = shouldRun.every(
            (row) => row.status === "online" && row.health_status !== "unhealthy" && row.health_status !== "unknown"
          )
          // A daemon that cannot save its state or write its logs is degraded even when every app runs.
          const healthy = appsHealthy && saving.failure === null && logHealth.failing.length === 0
          const report = {
            status: healthy ? ("healthy" as const) : ("degraded" as const),
            daemon: { pid: daemon.pid, uptime: formatUptime(uptimeMs()) },
            processes: {
              total: rows.length,
              online: rows.filter((row) => row.status === "online").length,
              errored: rows.filter((row) => row.status === "errored").length,
              unhealthy
            },
            state: {
              saved: saving.failure === null,
              last_saved_at: saving.lastSavedAt === null ? null : new Date(saving.lastSavedAt).toISOString(),
              error:
                saving.failure === null
                  ? null
                  : {
                      code: saving.failure.code,
                      message: saving.failure.error.message,
                      since: new Date(saving.failure.since).toISOString()
                    }
            },
            logs: logHealth
          }
          // `?strict=true` lets a load balancer treat a degraded daemon as down; by default a
          // liveness probe must not kill the daemon over one app (docs/api.md).
          if (!healthy && strict) {
            return HttpServerResponse.unsafeJson(report, { status: 503 })
          }
          return report
        })
      )
  })
)

export const DaemonHandlers = HttpApiBuilder.group(PmfxApi, "daemon", (handlers) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const daemon = yield* DaemonInfo
    const web = yield* WebListener
    return handlers
      .handle("kill", ({ request }) =>
        Effect.gen(function* () {
          const rows = yield* manager.list()
          yield* Ref.set(daemon.killed, true)
          // The daemon stops every app and exits once this response has been sent.
          yield* afterResponse(request, Deferred.succeed(daemon.shutdown, undefined))
          // Every row that runs or is about to run again: one waiting out its restart delay has no
          // pid for a moment, yet kill stops it as surely as an online one.
          const stopped = rows.filter((row) => row.pid !== null || isRunningStatus(row.status)).map((row) => row.id)
          const ending = daemon.host === "runtime" ? "pmfx-runtime (the container ends with it)" : "the daemon"
          return {
            success: true as const,
            message: `stopping ${stopped.length} process${stopped.length === 1 ? "" : "es"} and ${ending}`,
            stopped,
            host: daemon.host
          }
        })
      )
      .handle("handOver", ({ request }) =>
        Effect.gen(function* () {
          if (daemon.host === "runtime") {
            // Its apps would be left to a background daemon and the container would end with PID 1.
            return yield* new BadRequest({
              message:
                "pmfx-runtime cannot be replaced in place: it is the container's main process, and ending it ends the container",
              details: {
                field: "daemon",
                reason: "this daemon is pmfx-runtime",
                suggestion:
                  "to run a new pmfx, rebuild the image and restart the container; `pmfx restart all` restarts the apps"
              }
            })
          }
          const rows = yield* manager.list()
          yield* Ref.set(daemon.handOver, true)
          // The daemon lets go of its apps and exits once this response has been sent.
          yield* afterResponse(request, Deferred.succeed(daemon.shutdown, undefined))
          const running = rows.filter((row) => row.pid !== null).map((row) => row.id)
          return {
            success: true as const,
            message: `the daemon exits; ${running.length} process${running.length === 1 ? "" : "es"} keep running for the next daemon to adopt`,
            running
          }
        })
      )
      .handle("resurrect", () =>
        Effect.gen(function* () {
          yield* Ref.set(daemon.killed, false)
          const rows = yield* manager.resurrect()
          return {
            success: true as const,
            message: `started ${rows.length} process${rows.length === 1 ? "" : "es"} that should run`,
            processes: rows
          }
        })
      )
      .handle("web", ({ payload }) =>
        Effect.gen(function* () {
          if (payload.stop === true) {
            const closed = yield* web.close
            return (
              closed ?? {
                host: payload.host,
                port: payload.port,
                auth: false,
                url: listenerUrl(payload.host, payload.port),
                listening: false
              }
            )
          }
          const settings: WebSettings = {
            host: payload.host,
            port: payload.port,
            ...(payload.api_key === undefined ? {} : { apiKey: payload.api_key }),
            ...(payload.read_only_api_key === undefined ? {} : { readOnlyApiKey: payload.read_only_api_key }),
            corsOrigins: payload.cors_origins ?? [],
            verbose: payload.verbose ?? false,
            ...(payload.metrics_public === true ? { metricsPublic: true } : {})
          }
          return yield* web.open(settings)
        })
      )
  })
)
