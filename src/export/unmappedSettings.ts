/**
 * Settings an app uses that no export target has a counterpart for (docs/export.md, "No
 * counterpart"). Each becomes a comment or annotation in the exported files and a warning on stderr,
 * so nothing is dropped silently. Settings left at their defaults say nothing.
 */
import { DEFAULT_KILL_SIGNAL } from "../domain/killSignal"
import type { ExportTarget } from "./exportTarget"
import type { PortableApp } from "./portableApp"

export interface UnmappedSetting {
  /** The setting, as written in the ecosystem file. */
  readonly key: string
  /** What it did under pmfx, and what to do on the target instead. */
  readonly note: string
}

const restartCommand = (target: ExportTarget, id: string): string =>
  target === "kubernetes"
    ? `kubectl rollout restart deployment/${id}`
    : target === "compose"
      ? `docker compose restart ${id}`
      : `systemctl restart '${id}*'`

export const unmappedSettings = (portable: PortableApp, target: ExportTarget): ReadonlyArray<UnmappedSetting> => {
  const { app, id } = portable
  const notes: Array<UnmappedSetting> = []
  if (app.watch) {
    notes.push({
      key: "watch",
      note: `restarting on file changes has no counterpart; after a change run \`${restartCommand(target, id)}\`${target === "systemd" ? "" : " with a new image"}`
    })
  }
  if (app.cron_restart !== null) {
    notes.push({
      key: "cron_restart",
      note: `the restart at "${app.cron_restart}" is not exported; schedule \`${restartCommand(target, id)}\` at that time (${target === "kubernetes" ? "a CronJob whose service account may patch the Deployment" : target === "compose" ? "from the host's cron" : "a .timer unit"})`
    })
  }
  if (app.wait_ready) {
    notes.push({
      key: "wait_ready",
      note: `the app's 'ready' message over IPC has no counterpart; ${portable.healthCheck === null ? "add a health_check so readiness is probed" : "readiness comes from the health check"}`
    })
  }
  if (app.shutdown_with_message) {
    notes.push({
      key: "shutdown_with_message",
      note: `the 'shutdown' IPC message has no counterpart; the app is stopped with ${app.kill_signal ?? DEFAULT_KILL_SIGNAL} (then SIGKILL after kill_timeout)`
    })
  }
  // Systemd (KillSignal=) and compose (stop_signal) take it; a pod spec has no stable field for it.
  if (app.kill_signal !== null && app.kill_signal !== DEFAULT_KILL_SIGNAL && target === "kubernetes") {
    notes.push({
      key: "kill_signal",
      note: `Kubernetes stops a container with its image's STOPSIGNAL (SIGTERM unless the image says otherwise): add \`STOPSIGNAL ${app.kill_signal}\` to the image's Dockerfile`
    })
  }
  if (app.increment_var !== null && target !== "systemd" && app.instances > 1) {
    notes.push({
      key: "increment_var",
      note: `every replica gets the same ${app.increment_var}: replicas of one template cannot count up`
    })
  }
  if (app.alerts !== null) {
    notes.push({ key: "alerts", note: "alert thresholds are pmfx's own; use the engine's monitoring instead" })
  }
  return notes
}

/** The warnings of a whole export, one line per setting: `<app>: <key>: <note>`. */
export const warningLines = (apps: ReadonlyArray<PortableApp>, target: ExportTarget): ReadonlyArray<string> =>
  apps.flatMap((portable) =>
    unmappedSettings(portable, target).map(({ key, note }) => `${portable.app.name}: ${key}: ${note}`)
  )
