/**
 * The one contract of pmfx's HTTP API (docs/api.md §4, docs/api.md). The daemon serves it on its unix
 * socket (and, from the web milestone on, over TCP); the CLI calls it through the client derived
 * from it; the OpenAPI document is generated from it. Errors are the structured error classes in
 * their wire form, each with its status.
 */
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import packageJson from "../../package.json"
import * as W from "../domain/ErrorWire"
import { ProcessDetail } from "../domain/ProcessDetail"
import { ProcessMetrics } from "../domain/ProcessMetrics"
import { ProcessSummary } from "../domain/ProcessSummary"
import { CONTENT_TYPE as PROMETHEUS_TEXT } from "../metrics/Exposition"
import { SystemStats } from "../monitor/systemStats"
import {
  ActionResult,
  AlertHistory,
  DeliveryHistory,
  HistoryQuery,
  ApplyResult,
  CreateRequest,
  DaemonStatus,
  DeleteQuery,
  DeleteResult,
  HealthQuery,
  HealthReport,
  HandOverResult,
  KillResult,
  LogsQuery,
  LogsResponse,
  MetricsQuery,
  PortOverride,
  ProcessListQuery,
  ReadyQuery,
  EnvQuery,
  EnvResult,
  FlushResult,
  ReloadLogsResult,
  ReloadResult,
  ScaleResult,
  SignalResult,
  ServiceInfo,
  SystemInfo,
  WebListenerResult,
  WebRequest
} from "./ApiSchemas"

/**
 * The `{id}` segment. Its encoded side is the segment as it goes on the wire: the client
 * percent-encodes the id (`/`, `%`, `?`, `#` or a space in a selector would otherwise change the
 * path, and `pmfx restart ./eco.json` would ask for a route that does not exist); on the server the
 * router has already decoded the segment, so decoding leaves it as it is.
 */
const PathSegment = Schema.transform(Schema.String, Schema.String, {
  strict: true,
  decode: (segment) => segment,
  encode: (id) => encodeURIComponent(id)
})

const IdPath = Schema.Struct({ id: PathSegment })

export class ServiceGroup extends HttpApiGroup.make("service").add(
  HttpApiEndpoint.get("info", "/").addSuccess(ServiceInfo)
) {}

export class ProcessesGroup extends HttpApiGroup.make("processes")
  .add(
    HttpApiEndpoint.get("list", "/api/processes")
      .setUrlParams(ProcessListQuery)
      .addSuccess(Schema.Array(ProcessSummary))
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.post("create", "/api/processes")
      .setPayload(Schema.Unknown)
      .addSuccess(ActionResult, { status: 201 })
      .addError(W.ProcessAlreadyExistsWire)
      .addError(W.InvalidConfigWire)
      .addError(W.PortInUseWire)
      .addError(W.InsufficientResourcesWire)
      .addError(W.ProcessStartFailedWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.del("deleteByStatus", "/api/processes")
      .setUrlParams(DeleteQuery)
      .addSuccess(DeleteResult)
      .addError(W.BadRequestWire)
      .addError(W.ProcessNotFoundWire)
  )
  .add(
    HttpApiEndpoint.get("get", "/api/processes/:id")
      .setPath(IdPath)
      .addSuccess(ProcessDetail)
      .addError(W.ProcessNotFoundWire)
  )
  .add(
    HttpApiEndpoint.del("delete", "/api/processes/:id")
      .setPath(IdPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(W.ProcessNotFoundWire)
  )
  .add(
    HttpApiEndpoint.post("start", "/api/processes/:id/start")
      .setPath(IdPath)
      .addSuccess(ActionResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.ProcessAlreadyRunningWire)
      .addError(W.ProcessStartFailedWire)
      .addError(W.InvalidConfigWire)
  )
  .add(
    HttpApiEndpoint.post("stop", "/api/processes/:id/stop")
      .setPath(IdPath)
      .addSuccess(ActionResult)
      .addError(W.ProcessNotFoundWire)
  )
  .add(
    HttpApiEndpoint.post("restart", "/api/processes/:id/restart")
      .setPath(IdPath)
      .setPayload(Schema.Unknown)
      .addSuccess(ActionResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.ProcessStartFailedWire)
      .addError(W.PortInUseWire)
      .addError(W.InsufficientResourcesWire)
      .addError(W.InvalidConfigWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.post("reload", "/api/processes/:id/reload")
      .setPath(IdPath)
      .setPayload(Schema.Unknown)
      .addSuccess(ReloadResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.ProcessStartFailedWire)
      .addError(W.PortInUseWire)
      .addError(W.InsufficientResourcesWire)
      .addError(W.InvalidConfigWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.post("scale", "/api/processes/:id/scale")
      .setPath(IdPath)
      .setPayload(Schema.Unknown)
      .addSuccess(ScaleResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.ProcessStartFailedWire)
      .addError(W.PortInUseWire)
      .addError(W.InsufficientResourcesWire)
      .addError(W.InvalidConfigWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.post("flush", "/api/processes/:id/flush")
      .setPath(IdPath)
      .addSuccess(FlushResult)
      .addError(W.ProcessNotFoundWire)
  )
  .add(HttpApiEndpoint.post("flushAll", "/api/logs/flush").addSuccess(FlushResult))
  .add(HttpApiEndpoint.post("reloadLogs", "/api/logs/reload").addSuccess(ReloadLogsResult))
  .add(
    HttpApiEndpoint.post("signal", "/api/processes/:id/signal")
      .setPath(IdPath)
      .setPayload(Schema.Unknown)
      .addSuccess(SignalResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.get("env", "/api/processes/:id/env")
      .setPath(IdPath)
      .setUrlParams(EnvQuery)
      .addSuccess(EnvResult)
      .addError(W.ProcessNotFoundWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.post("reset", "/api/processes/:id/reset")
      .setPath(IdPath)
      .addSuccess(ActionResult)
      .addError(W.ProcessNotFoundWire)
  )
  .add(
    HttpApiEndpoint.get("ready", "/api/processes/:id/ready")
      .setPath(IdPath)
      .setUrlParams(ReadyQuery)
      .addSuccess(Schema.Array(ProcessSummary))
      .addError(W.ProcessNotFoundWire)
      .addError(W.ReadyTimeoutWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.get("logs", "/api/processes/:id/logs")
      .setPath(IdPath)
      .setUrlParams(LogsQuery)
      .addSuccess(LogsResponse)
      .addError(W.ProcessNotFoundWire)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.get("metrics", "/api/processes/:id/metrics")
      .setPath(IdPath)
      .setUrlParams(MetricsQuery)
      .addSuccess(ProcessMetrics)
      .addError(W.ProcessNotFoundWire)
      .addError(W.BadRequestWire)
  )
  .add(
    // A whole ecosystem file in one request; each app's outcome is in the answer (docs/api.md).
    HttpApiEndpoint.post("apply", "/api/apply")
      .setPayload(Schema.Unknown)
      .addSuccess(ApplyResult)
      .addError(W.InvalidConfigWire)
      .addError(W.BadRequestWire)
  )
  .addError(W.ServiceUnavailableWire)
  // Any change fails with one of these when state.json cannot be saved (a full disk: INSUFFICIENT_RESOURCES).
  .addError(W.InsufficientResourcesWire)
  .addError(W.FileErrorWire)
  .addError(W.InternalErrorWire) {}

export class SystemGroup extends HttpApiGroup.make("system")
  .add(HttpApiEndpoint.get("system", "/api/system").addSuccess(SystemInfo))
  .add(HttpApiEndpoint.get("status", "/api/status").addSuccess(DaemonStatus))
  .add(HttpApiEndpoint.get("stats", "/api/system/stats").addSuccess(SystemStats))
  .add(
    HttpApiEndpoint.get("health", "/health")
      .setUrlParams(HealthQuery)
      .addSuccess(HealthReport)
      .addError(W.BadRequestWire)
  )
  .addError(W.ServiceUnavailableWire)
  .addError(W.InternalErrorWire) {}

/** The recent alerts and webhook deliveries the daemon keeps in memory (docs/api.md, "Alert and webhook history"). */
export class HistoryGroup extends HttpApiGroup.make("history")
  .add(
    HttpApiEndpoint.get("alerts", "/api/alerts")
      .setUrlParams(HistoryQuery)
      .addSuccess(AlertHistory)
      .addError(W.BadRequestWire)
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/api/webhooks/deliveries")
      .setUrlParams(HistoryQuery)
      .addSuccess(DeliveryHistory)
      .addError(W.BadRequestWire)
  )
  .addError(W.ServiceUnavailableWire)
  .addError(W.InternalErrorWire) {}

/** `GET /metrics`: the Prometheus text exposition (docs/metrics.md). */
export class MetricsGroup extends HttpApiGroup.make("metrics")
  .add(
    HttpApiEndpoint.get("scrape", "/metrics").addSuccess(
      Schema.String.pipe(HttpApiSchema.withEncoding({ kind: "Text", contentType: PROMETHEUS_TEXT }))
    )
  )
  .addError(W.ServiceUnavailableWire)
  .addError(W.InternalErrorWire) {}

/** Daemon control: served on the unix socket only, never over TCP (docs/api.md). */
export class DaemonGroup extends HttpApiGroup.make("daemon")
  .add(HttpApiEndpoint.post("kill", "/daemon/kill").addSuccess(KillResult))
  .add(HttpApiEndpoint.post("handOver", "/daemon/restart").addSuccess(HandOverResult).addError(W.BadRequestWire))
  .add(
    HttpApiEndpoint.post("resurrect", "/daemon/resurrect").addSuccess(ActionResult).addError(W.ProcessStartFailedWire)
  )
  .add(
    HttpApiEndpoint.put("web", "/daemon/web")
      .setPayload(WebRequest)
      .addSuccess(WebListenerResult)
      .addError(W.PortInUseWire)
      .addError(W.BadRequestWire)
  )
  .addError(W.InsufficientResourcesWire)
  .addError(W.FileErrorWire)
  .addError(W.InternalErrorWire) {}

export class PmfxApi extends HttpApi.make("pmfx")
  .add(ServiceGroup)
  .add(ProcessesGroup)
  .add(SystemGroup)
  .add(HistoryGroup)
  .add(MetricsGroup)
  .add(DaemonGroup)
  // Without these the OpenAPI document calls itself "Api" version 0.0.1.
  .annotateContext(
    OpenApi.annotations({ title: "pmfx", version: packageJson.version, description: packageJson.description })
  ) {}

export { CreateRequest, PortOverride }
