/**
 * Keeps state.json in step with the engine: saved after every change the user makes (handlers
 * call `save` before they answer), whenever a row's status or pid changes, and whenever the
 * daemon-wide webhooks or alert thresholds change (debounced) — so a daemon killed at any moment
 * leaves what the next one needs.
 */
import { Duration, Effect, Option, Ref, Stream } from "effect"
import { Alerts } from "../events/Alerts"
import { EventBus } from "../events/EventBus"
import { Webhooks } from "../events/Webhooks"
import { ProcessManager } from "../supervisor/ProcessManager"
import { DaemonInfo } from "./DaemonInfo"
import { Paths } from "./Paths"
import { writeStateFile } from "./StateFile"

const DEBOUNCE = Duration.millis(25)

export class StateStore extends Effect.Service<StateStore>()("pmfx/StateStore", {
  scoped: Effect.gen(function* () {
    const paths = yield* Paths
    const manager = yield* ProcessManager
    const bus = yield* EventBus
    const daemon = yield* DaemonInfo
    // The daemon provides both; a host without them saves no notification settings.
    const alerts = yield* Effect.serviceOption(Alerts)
    const webhooks = yield* Effect.serviceOption(Webhooks)
    const lock = yield* Effect.makeSemaphore(1)

    const save = lock.withPermits(1)(
      Effect.gen(function* () {
        const engine = yield* manager.snapshot()
        const web = yield* Ref.get(daemon.webSettings)
        const hooks = Option.isSome(webhooks) ? yield* webhooks.value.webhooks() : []
        const rules = Option.isSome(alerts) ? yield* alerts.value.globalRules() : {}
        yield* writeStateFile(paths.state, {
          version: 1,
          saved_at: new Date().toISOString(),
          killed: yield* Ref.get(daemon.killed),
          engine,
          ...(web === null ? {} : { web }),
          ...(hooks.length === 0 ? {} : { webhooks: hooks }),
          ...(Object.keys(rules).length === 0 ? {} : { alerts: rules })
        })
      })
    ).pipe(Effect.catchAllDefect((defect) => Effect.logError("could not write state.json", defect)))

    const settingsChanged = Stream.merge(
      Option.match(alerts, { onNone: () => Stream.empty, onSome: (service) => service.changes }),
      Option.match(webhooks, { onNone: () => Stream.empty, onSome: (service) => service.changes })
    )
    yield* bus.stream().pipe(
      Stream.filter((event) => event._tag === "ProcessStatus" || event._tag === "TableChanged"),
      Stream.as(undefined),
      Stream.merge(settingsChanged),
      Stream.debounce(DEBOUNCE),
      Stream.runForEach(() => save),
      Effect.forkScoped
    )
    // The last word when the daemon stops: what was running is still wanted.
    yield* Effect.addFinalizer(() => save)
    return { save }
  })
}) {}
