/**
 * `Effect.acquireRelease` for what lives as long as an app runs (its process, its log files):
 * the acquisition is uninterruptible and the release runs, uninterruptible, when the scope closes,
 * as with `Effect.acquireRelease` — without the copy of the acquiring fiber's refs that
 * `Effect.acquireRelease` keeps until then, to run the release with them. Each copy is a map of
 * every fiber ref the fiber holds (~1–2 KB), and an app held four for as long as it ran
 * (docs/decisions.md, "A row's fiber keeps nothing of the request that started it"). The release
 * runs with the refs of the fiber that closes the scope; the releases given here read none.
 */
import { Effect, type Exit, Scope } from "effect"

export const acquireReleaseLean = <A, E, R>(
  acquire: Effect.Effect<A, E, R>,
  release: (resource: A, exit: Exit.Exit<unknown, unknown>) => Effect.Effect<unknown>
): Effect.Effect<A, E, R | Scope.Scope> =>
  Effect.uninterruptible(
    Effect.flatMap(Effect.scope, (scope) =>
      Effect.tap(acquire, (resource) =>
        Scope.addFinalizerExit(scope, (exit) => Effect.uninterruptible(release(resource, exit)))
      )
    )
  )

/** `Effect.addFinalizer`, likewise without the copy of the fiber's refs. */
export const addFinalizerLean = (finalizer: Effect.Effect<unknown>): Effect.Effect<void, never, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) => Scope.addFinalizer(scope, Effect.uninterruptible(finalizer)))
