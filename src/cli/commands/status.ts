/**
 * `pmfx status [file|name|id]` (docs/architecture.md §10): without an argument, the daemon (pid, uptime, home,
 * socket, web listener, processes per state); with a process name/id, its rows with their health;
 * with an ecosystem file, each app of the file and whether it runs.
 */
import { Args, Command } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { homeModeWarning } from "../../shared/homePaths"
import { isRunningStatus, processStatuses } from "../../domain/ProcessStatus"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { CallerEnvironment } from "../CallerEnvironment"
import { DaemonClient } from "../DaemonClient"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { healthLine } from "../renderProcess"
import { columns, style } from "../style"
import { classifyTarget, targetDescription } from "../target"
import { envOption, jsonOption, loadFileForCommand } from "./configOptions"

/** The rows a target names, in the daemon's order (docs/architecture.md §4): an id, `all`, an app name, a namespace. */
export const selectRows = (rows: ReadonlyArray<ProcessSummary>, target: string): Array<ProcessSummary> => {
  const trimmed = target.trim()
  if (/^\d+$/.test(trimmed)) return rows.filter((row) => row.id === Number(trimmed))
  if (trimmed === "all") return [...rows]
  const byName = rows.filter((row) => row.name === trimmed)
  return byName.length > 0 ? byName : rows.filter((row) => row.namespace === trimmed)
}

const daemonStatus = (json: boolean) =>
  Effect.gen(function* () {
    const status = yield* withDaemon(json, (api) => api.system.status())
    // The local home only: a remote daemon's folder is not on this machine.
    const { target, paths } = yield* DaemonClient
    if (target._tag === "Local") {
      const warning = homeModeWarning(paths.home, fs.statSync(paths.home).mode)
      if (warning !== null) yield* Console.error(style.yellow(process.stderr)(warning))
    }
    if (json) return yield* printJson(status)
    const counts = processStatuses
      .filter((state) => status.processes.by_status[state] > 0)
      .map((state) => `${status.processes.by_status[state]} ${state}`)
    const web =
      status.web === null
        ? style.dim(process.stdout)("off (pmfx web to open it)")
        : `http://${status.web.host.includes(":") ? `[${status.web.host}]` : status.web.host}:${status.web.port} ${style.dim(process.stdout)(status.web.auth ? "(API key required)" : "(no API key)")}`
    const socketNote =
      path.dirname(status.socket) === status.home
        ? ""
        : ` ${style.dim(process.stdout)("(a short path: the home's path is too long for a unix socket)")}`
    const rows: Array<[string, string]> = [
      ["pid", String(status.pid)],
      ["uptime", status.uptime],
      ["home", status.home],
      ["socket", `${status.socket}${socketNote}`],
      ["web", web],
      ["processes", status.processes.total === 0 ? "none" : `${status.processes.total}: ${counts.join(", ")}`]
    ]
    // PM2 users type `pm2 status` for the process table: it follows the daemon's lines.
    const processes =
      status.processes.total === 0 ? [] : yield* withDaemon(json, (api) => api.processes.list({ urlParams: {} }))
    yield* Console.log(
      [
        `${style.green(process.stdout)("running")} pmfx ${status.version} daemon`,
        ...columns(rows.map(([k, v]) => [style.dim(process.stdout)(k), v])).map((line) => `  ${line}`),
        ...(processes.length === 0 ? [] : ["", renderProcessTable(processes)])
      ].join("\n")
    )
  })

const processStatus = (target: string, json: boolean) =>
  Effect.gen(function* () {
    const details = yield* withDaemon(
      json,
      (api) =>
        Effect.gen(function* () {
          const selected = selectRows(yield* api.processes.list({ urlParams: {} }), target)
          // Nothing matched here: the daemon's own answer says why (and suggests a close name).
          if (selected.length === 0) return [yield* api.processes.get({ path: { id: target } })]
          return yield* Effect.forEach(selected, (row) => api.processes.get({ path: { id: String(row.id) } }), {
            concurrency: 4
          })
        }),
      { selector: target }
    )
    if (json) {
      return yield* printJson(details.map(({ app_instances: _instances, config: _config, logs: _logs, ...row }) => row))
    }
    const now = Date.now()
    const lines = [renderProcessTable(details)]
    const checked = details.filter((detail) => detail.health_check.enabled)
    if (checked.length > 0) {
      lines.push("", style.bold(process.stdout)("health"))
      lines.push(
        ...columns(
          checked.map((detail) => [`${detail.name}[${detail.instance}]`, healthLine(detail.health_check, now)])
        ).map((line) => `  ${line}`)
      )
    }
    yield* Console.log(lines.join("\n"))
  })

/** What an app of a file looks like in the daemon. */
const appState = (rows: ReadonlyArray<ProcessSummary>): "not started" | "running" | "partly running" | "stopped" => {
  if (rows.length === 0) return "not started"
  const live = rows.filter((row) => isRunningStatus(row.status)).length
  return live === rows.length ? "running" : live > 0 ? "partly running" : "stopped"
}

const fileStatus = (file: string, env: Option.Option<string>, json: boolean) =>
  Effect.gen(function* () {
    const loaded = yield* loadFileForCommand(file, env, json)
    const rows = yield* withDaemon(json, (api) => api.processes.list({ urlParams: {} }))
    const apps = loaded.apps.map((app) => {
      const own = rows.filter((row) => row.name === app.name)
      return {
        name: app.name,
        namespace: app.namespace,
        instances: app.instances,
        state: appState(own),
        running: own.some((row) => isRunningStatus(row.status)),
        processes: own.map((row) => ({
          id: row.id,
          instance: row.instance,
          status: row.status,
          pid: row.pid,
          health_status: row.health_status
        }))
      }
    })
    if (json) return yield* printJson({ success: true, file: loaded.file, apps })
    const paint = (state: ReturnType<typeof appState>) =>
      state === "running"
        ? style.green(process.stdout)(state)
        : state === "partly running"
          ? style.yellow(process.stdout)(state)
          : style.dim(process.stdout)(state)
    const table = apps.map((app) => {
      const online = app.processes.filter((row) => row.status === "online").length
      return [
        style.bold(process.stdout)(app.name),
        paint(app.state),
        app.processes.length === 0 ? "" : `${online}/${app.processes.length} online`,
        app.processes.length === 0
          ? ""
          : `${app.processes.length === 1 ? "id" : "ids"} ${app.processes.map((row) => row.id).join(", ")}`,
        app.namespace === "default" ? "" : `namespace ${app.namespace}`
      ]
    })
    const count = `${apps.length} app${apps.length === 1 ? "" : "s"}`
    yield* Console.log([`${loaded.file}: ${count}`, ...columns(table).map((line) => `  ${line}`)].join("\n"))
  })

export const statusCommand = Command.make(
  "status",
  {
    target: Args.text({ name: "file|name|id" }).pipe(Args.withDescription(targetDescription), Args.optional),
    env: envOption,
    json: jsonOption
  },
  ({ target, env, json }) =>
    Effect.gen(function* () {
      if (Option.isNone(target)) return yield* daemonStatus(json)
      const caller = yield* CallerEnvironment
      const classified = classifyTarget(target.value, caller.cwd)
      return yield* classified._tag === "File"
        ? fileStatus(classified.file, env, json)
        : processStatus(classified.id, json)
    })
).pipe(
  Command.withDescription(
    "Without an argument, the daemon's status; with a process name/id, its rows and their health; with an ecosystem file, whether each of its apps runs"
  )
)
