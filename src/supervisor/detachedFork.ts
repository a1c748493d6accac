/**
 * Forks a long-lived fiber as a descendant of the engine, not of the fiber that asks for it
 * (docs/decisions.md, "A row's fiber keeps nothing of the request that started it").
 *
 * A forked fiber starts with a copy of its parent's fiber refs, and each ref keeps the values its
 * ancestors held (the history Effect merges when fibers are joined). A row's supervisor is most
 * often forked from an HTTP request's fiber, so it kept that request's service context — the
 * `IncomingMessage`, its `ServerResponse` and socket — for as long as the row ran. Setting the
 * context to empty before forking does not help: the history still holds it.
 */
import { Context, Effect, type Fiber, Runtime, type Scope } from "effect"

export type DetachedFork = <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<Fiber.RuntimeFiber<A, E>>

/**
 * Captures the calling fiber's refs (the engine's, while it is built). Each fork runs in `scope`
 * like `Effect.forkIn` (closing the scope interrupts it), interruptible, with no service: the
 * effects forked need none.
 */
export const makeDetachedFork = (scope: Scope.Scope): Effect.Effect<DetachedFork> =>
  Effect.map(Effect.runtime<never>(), (captured) => {
    const runtime = Runtime.make({
      context: Context.empty(),
      fiberRefs: captured.fiberRefs,
      runtimeFlags: Runtime.defaultRuntimeFlags
    })
    // Not `immediate`: the fiber is scheduled as `Effect.forkIn` schedules it, after the caller yields.
    return (effect) => Effect.sync(() => Runtime.runFork(runtime, effect, { scope, immediate: false }))
  })
