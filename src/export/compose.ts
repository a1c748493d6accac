/**
 * `pmfx export compose` (docs/export.md, "Compose"): one service per app in a `compose.yaml` that
 * follows the Compose Specification. What has no counterpart is listed under the service's
 * `x-pmfx-notes` extension field (engines ignore `x-` keys) and warned about.
 */
import { DEFAULT_KILL_SIGNAL } from "../domain/killSignal"
import * as path from "node:path"
import { Document } from "yaml"
import type { Dependency } from "../domain/Dependency"
import { formatSize } from "../domain/Size"
import type { ExportOptions } from "./exportTarget"
import type { PortableApp } from "./portableApp"
import { seconds } from "./portableApp"
import { unmappedSettings } from "./unmappedSettings"
import { quoteForYaml11 } from "./yaml11Safe"

/** A duration in compose's notation: whole seconds, or milliseconds below a second. */
const duration = (ms: number): string => (ms % 1000 === 0 || ms >= 10_000 ? `${Math.ceil(ms / 1000)}s` : `${ms}ms`)

/** Node's fetch: a health check that needs nothing in the image but the node the app runs on. */
const NODE_HTTP_CHECK =
  "fetch(process.argv[1]).then((r) => process.exit(r.status >= 200 && r.status < 300 ? 0 : 1), () => process.exit(1))"

const healthcheck = (portable: PortableApp): Record<string, unknown> | null => {
  const check = portable.healthCheck
  const timing = portable.healthTiming
  if (check === null || timing === null) return null
  const test =
    check.kind === "exec"
      ? ["CMD", check.command]
      : portable.argv[0] === "node"
        ? ["CMD", "node", "-e", NODE_HTTP_CHECK, check.url]
        : ["CMD", "wget", "-q", "-O", "/dev/null", check.url]
  return {
    test,
    interval: `${timing.interval}s`,
    timeout: `${timing.timeout}s`,
    retries: timing.retries,
    start_period: `${seconds(Math.max(portable.app.listen_timeout, portable.app.min_uptime))}s`
  }
}

/** pmfx's conditions as compose's: the dependency's health check stands for "up" whenever it has one. */
const condition = (dependency: Dependency, target: PortableApp): string => {
  if (dependency.condition === "completed_successfully") return "service_completed_successfully"
  return target.healthCheck !== null ? "service_healthy" : "service_started"
}

const renderService = (portable: PortableApp, byName: ReadonlyMap<string, PortableApp>, options: ExportOptions) => {
  const { app } = portable
  const notes: Array<[string, string]> = unmappedSettings(portable, "compose").map(({ key, note }) => [key, note])
  const dependsOn: Record<string, { condition: string }> = {}
  for (const dependency of app.depends_on) {
    const target = byName.get(dependency.name)
    if (target === undefined)
      notes.push([`depends_on.${dependency.name}`, `${dependency.name} is not in the export; start it first`])
    else {
      dependsOn[target.id] = { condition: condition(dependency, target) }
      if (dependency.condition === "log_ready")
        notes.push([
          `depends_on.${dependency.name}`,
          `log_ready has no counterpart: ${portable.id} waits for ${dependsOn[target.id]!.condition}`
        ])
    }
  }
  if (app.stop_exit_codes.length > 0)
    notes.push([
      "stop_exit_codes",
      `exit codes ${app.stop_exit_codes.join(", ")} are restarted like any failure; compose cannot exempt codes`
    ])
  if (app.umask !== null)
    notes.push(["umask", `umask ${app.umask} has no counterpart; set it in the image's entry point`])
  if (app.user === null && app.group !== null)
    notes.push(["group", `a group without a user has no counterpart; set user as "uid:${app.group}"`])
  const environment = { ...app.env, ...(portable.port === null ? {} : { PORT: String(portable.port.first) }) }
  const replicas = app.autostart ? app.instances : 0
  const port = portable.port
  const service: Record<string, unknown> = {
    image: options.image,
    command: [...portable.argv],
    working_dir: portable.cwd,
    // Reaps the zombies an app leaves, as the pmfx daemon does.
    init: true,
    ...(portable.envFile === null
      ? {}
      : { env_file: [path.relative(options.outputDir, portable.envFile.hostPath).split(path.sep).join("/")] }),
    ...(Object.keys(environment).length === 0 ? {} : { environment }),
    // A range publishes one host port per replica, as pmfx gives one per instance.
    ...(port === null
      ? {}
      : {
          ports: [`${port.last > port.first && replicas > 1 ? `${port.first}-${port.last}` : port.first}:${port.first}`]
        }),
    ...(app.user === null ? {} : { user: app.group === null ? app.user : `${app.user}:${app.group}` }),
    ...(Object.keys(dependsOn).length === 0 ? {} : { depends_on: dependsOn }),
    ...(healthcheck(portable) === null ? {} : { healthcheck: healthcheck(portable) }),
    restart: app.autorestart ? (app.max_restarts > 0 ? `on-failure:${app.max_restarts}` : "on-failure") : "no",
    stop_signal: app.kill_signal ?? DEFAULT_KILL_SIGNAL,
    stop_grace_period: duration(app.kill_timeout),
    deploy: {
      replicas,
      ...(app.max_memory_restart === null
        ? {}
        : { resources: { limits: { memory: formatSize(app.max_memory_restart) } } }),
      restart_policy: app.autorestart
        ? {
            condition: "on-failure",
            delay: duration(app.restart_delay),
            ...(app.max_restarts > 0 ? { max_attempts: app.max_restarts } : {}),
            window: duration(app.min_uptime)
          }
        : { condition: "none" }
    },
    labels: { "dev.pmfx.app": app.name, "dev.pmfx.namespace": app.namespace },
    ...(notes.length === 0 ? {} : { "x-pmfx-notes": Object.fromEntries(notes) })
  }
  return { service, warnings: notes.map(([key, note]) => `${app.name}: ${key}: ${note}`) }
}

/** Compose interpolates `$VAR` in every value; a `$` of the app's own is written `$$`. */
const escapeDollars = (node: unknown): unknown =>
  typeof node === "string"
    ? node.replace(/\$/g, "$$$$")
    : Array.isArray(node)
      ? node.map(escapeDollars)
      : typeof node === "object" && node !== null
        ? Object.fromEntries(Object.entries(node).map(([key, value]) => [key, escapeDollars(value)]))
        : node

export const composeDocument = (
  apps: ReadonlyArray<PortableApp>,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
) => {
  const rendered = apps.map((portable) => [portable.id, renderService(portable, byName, options)] as const)
  return {
    document: { services: Object.fromEntries(rendered.map(([id, r]) => [id, escapeDollars(r.service)])) },
    warnings: rendered.flatMap(([, r]) => r.warnings)
  }
}

export const renderCompose = (
  apps: ReadonlyArray<PortableApp>,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
) => {
  const { document, warnings } = composeDocument(apps, byName, options)
  const header = [
    `# Written by \`pmfx export compose\` from ${options.sourceName}; run with \`docker compose -f compose.yaml up -d\`.`,
    `# Every app runs in the image ${options.image} (--image), with the project folder at ${options.workdir} (--workdir).`,
    "# Settings with no compose counterpart are listed under x-pmfx-notes (docs/export.md)."
  ].join("\n")
  // Values like 4000:4000 (base-60 numbers) or `no` (a boolean: `restart: "no"`) to a YAML 1.1
  // reader are quoted, as the compose documentation advises.
  const yaml = quoteForYaml11(new Document(document, { aliasDuplicateObjects: false }))
  return { files: [{ path: "compose.yaml", content: `${header}\n${yaml.toString({ lineWidth: 0 })}` }], warnings }
}
