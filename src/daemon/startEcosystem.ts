/**
 * `pmfx daemon --config <file>`: once the saved apps are restored, the file's apps that the daemon
 * does not hold yet are created and started (as `pmfx start <file>` would), with the daemon's
 * environment under their own; apps it holds by name are left as they are, so restarting a
 * systemd unit never duplicates or restarts anything. The file's top-level `webhooks` (merged by
 * url) and `alerts` (replaced) apply on every start, before the apps, as `pmfx start <file>` does.
 * A failure is logged; the daemon keeps serving.
 */
import { Effect } from "effect"
import type { LoadedEcosystem } from "../config/ConfigLoader"
import { Notifications } from "../events/Notifications"
import { ProcessManager } from "../supervisor/ProcessManager"

export const startEcosystem = (ecosystem: LoadedEcosystem, baseEnv: Readonly<Record<string, string>>) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const notifications = yield* Notifications
    if (ecosystem.webhooks.length > 0) yield* notifications.mergeWebhooks(ecosystem.webhooks)
    if (ecosystem.alerts !== null) yield* notifications.setGlobalRules(ecosystem.alerts)
    const existing = new Set((yield* manager.list()).map((row) => row.name))
    const kept = ecosystem.apps.filter((app) => existing.has(app.name)).map((app) => app.name)
    const fresh = ecosystem.apps.filter((app) => !existing.has(app.name))
    const file = ecosystem.file ?? "--config"
    if (kept.length > 0) yield* Effect.logInfo(`${file}: ${kept.join(", ")} already present, left as they are`)
    if (fresh.length === 0) return
    yield* manager.create(fresh, { baseEnv }).pipe(
      Effect.tap((rows) =>
        Effect.logInfo(`${file}: started ${fresh.map((app) => app.name).join(", ")} (${rows.length} process(es))`)
      ),
      Effect.catchAll((error) => Effect.logError(`${file}: could not start its apps: ${error.message}`))
    )
  })
