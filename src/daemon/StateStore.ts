/**
 * Keeps state.json in step with the engine: saved after every change the user makes (handlers
 * call `save` before they answer) and whenever a row's status or pid changes (debounced), so a
 * daemon killed at any moment leaves what the next one needs.
 */
import { Duration, Effect, Ref, Stream } from "effect"
import { EventBus } from "../events/EventBus"
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
    const lock = yield* Effect.makeSemaphore(1)

    const save = lock.withPermits(1)(
      Effect.gen(function* () {
        const engine = yield* manager.snapshot()
        const web = yield* Ref.get(daemon.webSettings)
        yield* writeStateFile(paths.state, {
          version: 1,
          saved_at: new Date().toISOString(),
          killed: yield* Ref.get(daemon.killed),
          engine,
          ...(web === null ? {} : { web })
        })
      })
    ).pipe(Effect.catchAllDefect((defect) => Effect.logError("could not write state.json", defect)))

    yield* bus.stream().pipe(
      Stream.filter((event) => event._tag === "ProcessStatus" || event._tag === "TableChanged"),
      Stream.debounce(DEBOUNCE),
      Stream.runForEach(() => save),
      Effect.forkScoped
    )
    // The last word when the daemon stops: what was running is still wanted.
    yield* Effect.addFinalizer(() => save)
    return { save }
  })
}) {}
