/**
 * Where an instance's logs and pid file live (docs/configuration.md §3, docs/architecture.md §5): by default
 * `<home>/logs/<name>-<instance>-out.log`, `-err.log` and `<home>/pids/<name>-<instance>.pid`, where
 * `<name>` is the name's file form (`appName.ts`: `My API` → `My%20API`; other names unchanged).
 * A path the user gave is shared by all instances only with `merge_logs`; otherwise each instance
 * writes its own file with `-<instance>` before the extension (as PM2 does).
 */
import * as path from "node:path"
import type { AppDefinition } from "./AppDefinition"
import { fileNameOf } from "./appName"

export interface InstanceFiles {
  readonly out_file: string
  readonly error_file: string
  /** Both streams combined (PM2's `log_file`); null when not configured. */
  readonly log_file: string | null
  readonly pid_file: string
}

const perInstance = (file: string, instance: number): string => {
  const ext = path.extname(file)
  return `${file.slice(0, file.length - ext.length)}-${instance}${ext}`
}

export const instanceFiles = (
  app: Pick<AppDefinition, "name" | "instances" | "merge_logs" | "out_file" | "error_file" | "log_file" | "pid_file">,
  instance: number,
  home: string
): InstanceFiles => {
  const shared = app.merge_logs || app.instances === 1
  const logs = path.join(home, "logs")
  const base = fileNameOf(app.name)
  const tag = app.merge_logs ? base : `${base}-${instance}`
  const given = (file: string) => (shared ? file : perInstance(file, instance))
  return {
    out_file: app.out_file === null ? path.join(logs, `${tag}-out.log`) : given(app.out_file),
    error_file: app.error_file === null ? path.join(logs, `${tag}-err.log`) : given(app.error_file),
    log_file: app.log_file === null ? null : given(app.log_file),
    pid_file:
      app.pid_file === null
        ? path.join(home, "pids", `${base}-${instance}.pid`)
        : app.instances === 1
          ? app.pid_file
          : perInstance(app.pid_file, instance)
  }
}
