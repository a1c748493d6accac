/**
 * `pmfx export systemd` (docs/export.md, "systemd"): one unit per app — a template `<id>@.service`
 * when it has several instances (started as `<id>@0` … `<id>@N-1`), with a drop-in per instance for
 * what differs between them (its port of a range, its `increment_var`). What systemd has no
 * counterpart for is a `# pmfx:` comment in the unit.
 */
import { DEFAULT_KILL_SIGNAL } from "../domain/killSignal"
import { formatSize } from "../domain/Size"
import type { ExportFile, ExportOptions } from "./exportTarget"
import type { PortableApp } from "./portableApp"
import { seconds } from "./portableApp"
import { unmappedSettings } from "./unmappedSettings"

/**
 * A value in a unit file: `%` starts a specifier (written `%%`), `$` in Exec lines expands a
 * variable (written `$$`); a value with spaces, quotes or backslashes goes in double quotes.
 */
const unitWord = (value: string, inExec = false): string => {
  let escaped = value.replace(/%/g, "%%")
  if (inExec) escaped = escaped.replace(/\$/g, "$$$$")
  return /[\s"'\\;]/.test(escaped) || escaped === ""
    ? `"${escaped.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`
    : escaped
}

/** A path setting (WorkingDirectory=, EnvironmentFile=): taken whole, never quoted. */
const unitPath = (value: string): string => value.replace(/%/g, "%%")

/** An `Environment=` assignment, quoted as one word. */
const assignment = (key: string, value: string): string => `Environment=${unitWord(`${key}=${value}`)}`

/** A time span: systemd reads `500ms` and `3s`. */
const span = (ms: number): string => (ms === 0 ? "0" : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`)

const isTemplate = (portable: PortableApp): boolean => portable.app.instances > 1

/** The unit names another unit depends on: every instance of a template. */
export const unitNames = (portable: PortableApp): ReadonlyArray<string> =>
  isTemplate(portable)
    ? Array.from({ length: portable.app.instances }, (_, i) => `${portable.id}@${i}.service`)
    : [`${portable.id}.service`]

/** Per instance, what differs from the template: its port of a range and its increment_var. */
const instanceValues = (portable: PortableApp, instance: number): Record<string, string> => {
  const { app, port } = portable
  const values: Record<string, string> = {}
  if (port !== null && port.last > port.first) values.PORT = String(port.first + instance)
  if (app.increment_var !== null) {
    const written = app.env[app.increment_var] ?? portable.envFile?.vars[app.increment_var]
    const start = written === undefined || written.trim() === "" ? 0 : Number(written)
    if (Number.isInteger(start)) values[app.increment_var] = String(start + instance)
  }
  return values
}

const renderUnit = (portable: PortableApp, byName: ReadonlyMap<string, PortableApp>, options: ExportOptions) => {
  const { app, id } = portable
  const template = isTemplate(portable)
  const notes: Array<[string, string]> = unmappedSettings(portable, "systemd").map(({ key, note }) => [key, note])
  const comments: Array<string> = []
  const after = ["network.target"]
  const requires: Array<string> = []
  for (const dependency of app.depends_on) {
    const target = byName.get(dependency.name)
    if (target === undefined) {
      notes.push([
        `depends_on.${dependency.name}`,
        `${dependency.name} is not in the export; add After=/Requires= on its unit by hand`
      ])
      continue
    }
    after.push(...unitNames(target))
    requires.push(...unitNames(target))
    if (dependency.condition !== "online")
      notes.push([
        `depends_on.${dependency.name}`,
        `the condition ${dependency.condition} has no counterpart: After= waits until ${dependency.name} has started`
      ])
  }
  if (portable.healthCheck !== null) {
    comments.push(
      `# pmfx: health_check: systemd has no health checks; pmfx checked ${portable.healthCheck.kind === "http" ? portable.healthCheck.url : portable.healthCheck.command} every ${portable.healthTiming?.interval ?? 0}s.`
    )
  }
  const restarts = app.max_restarts + 1
  const env: Record<string, string> = { ...app.env }
  if (portable.port !== null && portable.port.first === portable.port.last) env.PORT = String(portable.port.first)
  if (!template) Object.assign(env, instanceValues(portable, 0))
  const instance = template ? "%i" : "0"
  const lines = [
    `# ${id}${template ? "@" : ""}.service, written by \`pmfx export systemd\` from ${options.sourceName} (app ${app.name}, namespace ${app.namespace}).`,
    template
      ? `# A template: save it in /etc/systemd/system, then \`systemctl daemon-reload && systemctl enable --now ${unitNames(
          portable
        )
          .map((u) => u.replace(/\.service$/, ""))
          .join(" ")}\`.`
      : `# Save it in /etc/systemd/system, then \`systemctl daemon-reload && systemctl enable --now ${id}\`.`,
    ...comments,
    ...notes.map(([key, note]) => `# pmfx: ${key}: ${note}`),
    "[Unit]",
    `Description=${app.name.replace(/%/g, "%%").replace(/[\r\n]/g, " ")}${template ? " instance %i" : ""} (pmfx export)`,
    `After=${after.join(" ")}`,
    ...(requires.length === 0 ? [] : [`Requires=${requires.join(" ")}`]),
    // max_restarts quick restarts (each within min_uptime, after restart_delay) and the unit gives up.
    `StartLimitBurst=${restarts}`,
    `StartLimitIntervalSec=${seconds(restarts * (app.min_uptime + app.restart_delay))}`,
    "",
    "[Service]",
    "Type=exec",
    `ExecStart=${portable.argv.map((word) => unitWord(word, true)).join(" ")}`,
    `WorkingDirectory=${unitPath(portable.cwd)}`,
    ...(app.user === null ? [] : [`User=${unitWord(app.user)}`]),
    ...(app.group === null ? [] : [`Group=${unitWord(app.group)}`]),
    ...(app.umask === null ? [] : [`UMask=${app.umask.padStart(4, "0")}`]),
    ...(portable.envFile === null ? [] : [`EnvironmentFile=${unitPath(portable.envFile.targetPath)}`]),
    ...Object.entries(env).map(([key, value]) => assignment(key, value)),
    // (Written raw: %i is the instance specifier; the name is a variable name, nothing to escape.)
    `Environment=PMFX_INSTANCE_ID=${instance}`,
    ...(app.instance_var === "PMFX_INSTANCE_ID" ? [] : [`Environment=${unitWord(app.instance_var)}=${instance}`]),
    `Restart=${app.autorestart ? "always" : "no"}`,
    `RestartSec=${span(app.restart_delay)}`,
    ...(app.stop_exit_codes.length === 0 ? [] : [`RestartPreventExitStatus=${app.stop_exit_codes.join(" ")}`]),
    ...(app.max_memory_restart === null ? [] : [`MemoryMax=${formatSize(app.max_memory_restart)}`]),
    `KillSignal=${app.kill_signal ?? DEFAULT_KILL_SIGNAL}`,
    `TimeoutStopSec=${span(app.kill_timeout)}`,
    "",
    ...(app.autostart
      ? ["[Install]", "WantedBy=multi-user.target"]
      : ["# pmfx: autostart is false: the unit is not enabled at boot (no [Install] section); start it by hand."])
  ]
  const files: Array<ExportFile> = [{ path: `${id}${template ? "@" : ""}.service`, content: `${lines.join("\n")}\n` }]
  if (template) {
    for (let i = 0; i < app.instances; i++) {
      const values = instanceValues(portable, i)
      if (Object.keys(values).length === 0) continue
      const dropIn = [
        `# What instance ${i} of ${id}@.service has of its own (pmfx export).`,
        "[Service]",
        ...Object.entries(values).map(([key, value]) => assignment(key, value))
      ]
      files.push({ path: `${id}@${i}.service.d/instance.conf`, content: `${dropIn.join("\n")}\n` })
    }
  }
  return { files, warnings: notes.map(([key, note]) => `${app.name}: ${key}: ${note}`) }
}

export const renderSystemd = (
  apps: ReadonlyArray<PortableApp>,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
) => {
  const rendered = apps.map((portable) => renderUnit(portable, byName, options))
  return { files: rendered.flatMap((r) => r.files), warnings: rendered.flatMap((r) => r.warnings) }
}
