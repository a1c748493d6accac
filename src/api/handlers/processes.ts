/** Handlers of `/api/processes…` (docs/api.md). */
import { HttpApiBuilder } from "@effect/platform"
import { Deferred, Effect, FiberRef, Schema, Stream } from "effect"
import { ConfigLoader } from "../../config/ConfigLoader"
import { DaemonInfo } from "../../daemon/DaemonInfo"
import { daemonEnvironmentForApps } from "../../daemon/daemonEnvironment"
import { isRecord } from "../../config/mergeSettings"
import type { AlertRules, Webhook } from "../../domain/AppDefinition"
import { InvalidConfig } from "../../domain/errors"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { Notifications } from "../../events/Notifications"
import { HISTORY_WINDOW_MS, MetricsHistory } from "../../monitor/MetricsHistory"
import { applyApps } from "../../supervisor/applyApps"
import { SamplingDemand } from "../../monitor/SamplingDemand"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { runOptions, scaleCount, signalOf } from "./actionBodies"
import { checkApplyApps, decodeApplyRequest } from "./applyRequest"
import { baseDirOf, boundProblems, checkInstances, checkNames } from "./createChecks"
import { logQuery, sse } from "./logRequests"
import { maskEnvironment } from "../../supervisor/instanceEnv"
import { PmfxApi } from "../../shared/Api"
import { plural } from "../../shared/plural"
import { CreateRequest, DEFAULT_READY_TIMEOUT_MS, MAX_READY_TIMEOUT_MS } from "../../shared/ApiSchemas"
import { maskEnvIfReadOnly, ReadOnlyRequest } from "../readOnly"
import {
  badRequest,
  checkDepth,
  nameMatcher,
  parseBooleanParam,
  parseDurationParam,
  parseStatuses
} from "../requestValues"

const action = (message: string, processes: ReadonlyArray<ProcessSummary>) => ({
  success: true as const,
  message,
  processes
})

export const ProcessesHandlers = HttpApiBuilder.group(PmfxApi, "processes", (handlers) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    // Metrics are sampled on demand: a reader gets figures no older than the sampling interval.
    const demand = yield* SamplingDemand
    const loader = yield* ConfigLoader
    const daemon = yield* DaemonInfo
    // Notifications.none in a host without notifications: the settings are then not kept.
    const notifications = yield* Notifications
    /**
     * An ecosystem's top-level `webhooks` (merged by url into the daemon's list) and `alerts`
     * (replacing the global thresholds), when it has them (docs/architecture.md §9, docs/decisions.md). Applied
     * before the apps start, so their first crash is covered; the result puts the previous
     * settings back, for a start that fails (all or nothing). StateStore saves the change.
     */
    const applyNotifications = (settings: {
      readonly webhooks?: ReadonlyArray<Webhook> | undefined
      readonly alerts?: AlertRules | null | undefined
    }) =>
      Effect.gen(function* () {
        const undo: Array<Effect.Effect<void>> = []
        if (settings.webhooks !== undefined && settings.webhooks.length > 0 && notifications.active) {
          const previous = yield* notifications.webhooks()
          yield* notifications.mergeWebhooks(settings.webhooks)
          undo.push(notifications.setWebhooks(previous))
        }
        if (settings.alerts !== undefined && settings.alerts !== null && notifications.active) {
          const previous = yield* notifications.globalRules()
          yield* notifications.setGlobalRules(settings.alerts)
          undo.push(notifications.setGlobalRules(previous))
        }
        return Effect.all(undo, { discard: true })
      })
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const statuses = urlParams.status === undefined ? undefined : yield* parseStatuses("status", urlParams.status)
          const matchesName = urlParams.name === undefined ? undefined : nameMatcher(urlParams.name)
          yield* demand.fresh
          const rows = yield* manager.list()
          return rows.filter(
            (row) =>
              (statuses === undefined || statuses.includes(row.status)) &&
              (matchesName === undefined || matchesName(row.name)) &&
              (urlParams.namespace === undefined || row.namespace === urlParams.namespace)
          )
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          if (!isRecord(payload)) {
            return yield* badRequest(
              "body",
              "the body must be a JSON object",
              'send one app ({"name": "api", "script": "server.js"}) or {"apps": [...]}'
            )
          }
          yield* checkDepth(payload)
          let definitions
          let baseEnv: Readonly<Record<string, string>>
          let undoNotifications: Effect.Effect<void>
          let warnings: ReadonlyArray<string> = []
          if ("definitions" in payload) {
            // The CLI's form: definitions its own loader resolved, with its environment.
            const request = yield* Schema.decodeUnknown(CreateRequest)(payload).pipe(
              Effect.mapError(() =>
                badRequest(
                  "definitions",
                  "not a list of resolved app definitions",
                  'send app settings instead: one app, or {"apps": [...]}'
                )
              )
            )
            definitions = request.definitions ?? []
            baseEnv = request.env ?? {}
            if (definitions.length === 0) {
              // A file whose apps all exist already: its latest top-level settings still apply.
              if (request.webhooks !== undefined || request.alerts !== undefined) {
                yield* applyNotifications(request)
                return action("no new app; applied the file's webhooks and alerts", [])
              }
              return yield* InvalidConfig.fromProblems([
                { field: "definitions", value: [], message: "has no app", suggestion: "send at least one app" }
              ])
            }
            yield* checkNames(definitions)
            yield* checkInstances(definitions, "definitions")
            undoNotifications = yield* applyNotifications(request)
          } else {
            // `cwd` beside `apps` is where relative paths start (as the folder of a file would
            // be); in the one-app form it is the app's own `cwd` setting and stays in the app.
            const { cwd, ...withoutCwd } = payload
            const [document, baseDir] =
              "apps" in payload ? [withoutCwd, yield* baseDirOf(cwd)] : [payload, process.cwd()]
            // Apps created here start from the daemon's environment (the CLI call's that started
            // it), without the daemon's own keys (daemonEnvironment.ts).
            const environment = daemonEnvironmentForApps()
            const loaded = yield* loader
              .fromDocument(document, baseDir, { environment })
              .pipe(Effect.mapError(boundProblems))
            definitions = loaded.apps
            warnings = loaded.warnings
            yield* checkInstances(definitions, "apps")
            baseEnv = environment
            undoNotifications = yield* applyNotifications(loaded)
          }
          const rows = yield* manager.create(definitions, { baseEnv }).pipe(Effect.tapError(() => undoNotifications))
          const result = action(
            `started ${plural(definitions.length, "app")} (${plural(rows.length, "process", "processes")})`,
            rows
          )
          return warnings.length === 0 ? result : { ...result, warnings }
        })
      )
      .handle("deleteByStatus", ({ urlParams }) =>
        Effect.gen(function* () {
          if (urlParams.id !== undefined) {
            if (urlParams.status !== undefined) {
              return yield* badRequest(
                "id",
                "cannot be combined with status",
                "send either ?id=<target> or ?status=<states>"
              )
            }
            // The ids this request removed (another request may delete some of the rows first).
            const deleted = yield* manager.delete(urlParams.id)
            return {
              success: true as const,
              message: `deleted ${plural(deleted.length, "process", "processes")}`,
              deleted
            }
          }
          if (urlParams.status === undefined) {
            return yield* badRequest(
              "status",
              "is required to delete by status",
              "use DELETE /api/processes?status=stopped,errored, DELETE /api/processes?id=<target>, or DELETE /api/processes/{id}"
            )
          }
          const statuses = yield* parseStatuses("status", urlParams.status)
          const rows = (yield* manager.list()).filter((row) => statuses.includes(row.status))
          const deleted: Array<number> = []
          for (const row of rows)
            deleted.push(...(yield* manager.delete(String(row.id)).pipe(Effect.orElseSucceed(() => []))))
          return {
            success: true as const,
            message: `deleted ${plural(deleted.length, "process", "processes")}`,
            deleted
          }
        })
      )
      .handle("get", ({ path }) =>
        demand.fresh.pipe(Effect.zipRight(manager.get(path.id)), Effect.flatMap(maskEnvIfReadOnly))
      )
      .handle("delete", ({ path }) => Effect.asVoid(manager.delete(path.id)))
      .handle("start", ({ path }) => Effect.map(manager.start(path.id), (rows) => action(`started ${path.id}`, rows)))
      .handle("stop", ({ path }) => Effect.map(manager.stop(path.id), (rows) => action(`stopped ${path.id}`, rows)))
      .handle("restart", ({ path, payload }) =>
        Effect.gen(function* () {
          const options = yield* runOptions(payload)
          const port = options.port
          const rows = yield* manager.restart(path.id, options)
          return action(
            `restarted ${path.id}${port === undefined ? "" : ` on port ${port}`}${options.baseEnv === undefined ? "" : " with the updated environment"}`,
            rows
          )
        })
      )
      .handle("reload", ({ path, payload }) =>
        Effect.gen(function* () {
          const options = yield* runOptions(payload)
          const result = yield* manager.reload(path.id, options)
          const note =
            result.restartedInstead.length > 0
              ? ` (${result.restartedInstead.join(", ")}: one instance, restarted instead)`
              : ""
          return { ...action(`reloaded ${path.id}${note}`, result.rows), restarted_instead: result.restartedInstead }
        })
      )
      .handle("scale", ({ path, payload }) =>
        Effect.gen(function* () {
          const count = yield* scaleCount(payload)
          const result = yield* manager.scale(path.id, count)
          const change =
            result.to === result.from
              ? "kept"
              : result.to > result.from
                ? `scaled up from ${result.from} to`
                : `scaled down from ${result.from} to`
          return {
            ...action(`${path.id}: ${change} ${plural(result.to, "instance")}`, result.processes),
            from: result.from,
            to: result.to,
            added: [...result.added],
            removed: [...result.removed]
          }
        })
      )
      .handle("flush", ({ path }) =>
        Effect.map(manager.flushLogs(path.id), (files) => ({
          success: true as const,
          message: `flushed ${plural(files.length, "log file")} of ${path.id}`,
          files: [...files]
        }))
      )
      .handle("flushAll", () =>
        Effect.map(manager.flushAllLogs(), (files) => ({
          success: true as const,
          message: `flushed ${plural(files.length, "log file")}`,
          files: [...files]
        }))
      )
      .handle("reloadLogs", () =>
        Effect.map(manager.reopenLogs(), ({ reopened, failed }) => ({
          success: true as const,
          message: `reopened ${plural(reopened.length, "log file")}${failed.length === 0 ? "" : `; ${plural(failed.length, "file")} could not be opened`}`,
          reopened: [...reopened],
          failed: [...failed]
        }))
      )
      .handle("signal", ({ path, payload }) =>
        Effect.gen(function* () {
          const signal = yield* signalOf(payload)
          const { signalled, processes } = yield* manager.sendSignal(path.id, signal)
          const message =
            signalled.length === 0
              ? `sent ${signal.name} to no process: no instance of ${path.id} is running`
              : `sent ${signal.name} to ${plural(signalled.length, "process", "processes")}`
          return {
            ...action(message, processes),
            signal: signal.name,
            signal_number: signal.number,
            signalled: [...signalled]
          }
        })
      )
      .handle("env", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const show = yield* parseBooleanParam("show_secrets", urlParams.show_secrets)
          const found = yield* manager.environment(path.id)
          // A read-only key never sees a value (as with `config.env` of GET /api/processes/{id}).
          const readOnly = yield* FiberRef.get(ReadOnlyRequest)
          const masked = readOnly
            ? maskEnvironment(found.env, "all")
            : show
              ? { env: found.env, masked: [] }
              : maskEnvironment(found.env, "secrets")
          return { ...found, env: masked.env, masked: [...masked.masked] }
        })
      )
      .handle("reset", ({ path }) =>
        Effect.map(manager.reset(path.id), (rows) => action(`reset the counters of ${path.id}`, rows))
      )
      .handle("ready", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const timeout = yield* parseDurationParam(
            "timeout",
            urlParams.timeout,
            DEFAULT_READY_TIMEOUT_MS,
            MAX_READY_TIMEOUT_MS
          )
          return yield* manager.waitReady(path.id, timeout)
        })
      )
      .handle("logs", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const follow = yield* parseBooleanParam("follow", urlParams.follow)
          const query = yield* logQuery(urlParams)
          const [first] = yield* manager.resolve(path.id)
          const name = first?.name ?? path.id
          if (follow) {
            const entries = yield* manager.followLogs(path.id, query)
            // A follower must not hold the daemon open: the stream ends when shutdown begins.
            return sse(entries.pipe(Stream.interruptWhen(Deferred.await(daemon.shutdown))))
          }
          const entries = yield* manager.readLogs(path.id, query)
          return { id: path.id, name, entries }
        })
      )
      .handle("metrics", ({ path, urlParams }) =>
        Effect.gen(function* () {
          // Checked first: a bad window is BAD_REQUEST even for an id that names nothing.
          const windowMs =
            urlParams.history === undefined
              ? undefined
              : yield* parseDurationParam(
                  "history",
                  urlParams.history,
                  HISTORY_WINDOW_MS,
                  HISTORY_WINDOW_MS,
                  "the daemon keeps 15m of history: ask for history=15m or less"
                )
          yield* demand.fresh
          const metrics = yield* manager.metrics(path.id)
          if (windowMs === undefined) return metrics
          const store = yield* MetricsHistory
          return { ...metrics, history: yield* store.history(metrics.id, windowMs) }
        })
      )
      .handle("apply", ({ payload }) =>
        Effect.gen(function* () {
          const request = yield* decodeApplyRequest(payload)
          const known = new Set((yield* manager.list()).map((row) => row.name))
          yield* checkApplyApps(request.apps, known)
          yield* checkInstances(request.apps, "apps")
          const dryRun = request.dry_run === true
          // The file's latest webhooks and alerts apply before its apps start (their first crash is reported).
          if (!dryRun) yield* applyNotifications(request)
          const outcome = yield* applyApps({
            mode: request.mode,
            apps: request.apps,
            prune: request.prune === true,
            dryRun,
            env: request.env ?? {},
            updateEnv: request.update_env === true
          })
          const failed = outcome.apps.filter((app) => !app.ok)
          const counts = new Map<string, number>()
          for (const app of outcome.apps) counts.set(app.action, (counts.get(app.action) ?? 0) + 1)
          const summary = [...counts].map(([name, n]) => `${n} ${name}`).join(", ")
          const message = `${dryRun ? "plan" : "applied"}: ${summary}${failed.length === 0 ? "" : `; ${plural(failed.length, "app")} failed: ${failed.map((app) => app.name).join(", ")}`}`
          return {
            success: failed.length === 0,
            message,
            dry_run: dryRun,
            apps: outcome.apps,
            processes: outcome.processes
          }
        })
      )
  })
)
