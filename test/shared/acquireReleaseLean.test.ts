import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import { acquireReleaseLean, addFinalizerLean } from "../../src/shared/acquireReleaseLean"

describe("acquireReleaseLean, Effect.acquireRelease without the copy of the fiber's refs", () => {
  it.effect("releases the resource once, with the scope's exit, when the scope closes", () =>
    Effect.gen(function* () {
      const released: Array<[string, Exit.Exit<unknown, unknown>]> = []
      const scope = yield* Scope.make()
      const resource = yield* acquireReleaseLean(Effect.succeed("file"), (file, exit) =>
        Effect.sync(() => released.push([file, exit]))
      ).pipe(Scope.extend(scope))
      expect(resource).toBe("file")
      expect(released).toStrictEqual([])
      const exit = Exit.fail("closed")
      yield* Scope.close(scope, exit)
      expect(released).toStrictEqual([["file", exit]])
    })
  )

  it.effect("a failed acquisition registers no release", () =>
    Effect.gen(function* () {
      let releases = 0
      const scope = yield* Scope.make()
      const result = yield* acquireReleaseLean(Effect.fail("no such file"), () => Effect.sync(() => releases++)).pipe(
        Scope.extend(scope),
        Effect.either
      )
      expect(result._tag).toBe("Left")
      yield* Scope.close(scope, Exit.void)
      expect(releases).toBe(0)
    })
  )

  it.live("an acquisition interrupted midway completes, and its resource is released with the scope", () =>
    Effect.gen(function* () {
      const released: Array<string> = []
      const scope = yield* Scope.make()
      const started = yield* Deferred.make<void>()
      const acquiring = yield* acquireReleaseLean(
        Effect.zipRight(Deferred.succeed(started, undefined), Effect.as(Effect.sleep("50 millis"), "process")),
        (resource) => Effect.sync(() => released.push(resource))
      ).pipe(Scope.extend(scope), Effect.fork)
      yield* Deferred.await(started)
      // Waits for the acquisition (uninterruptible) to finish.
      yield* Fiber.interrupt(acquiring)
      expect(released).toStrictEqual([])
      yield* Scope.close(scope, Exit.void)
      expect(released).toStrictEqual(["process"])
    })
  )

  it.live("the release is not interrupted by the fiber that closes the scope", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const inRelease = yield* Deferred.make<void>()
      let finished = false
      yield* acquireReleaseLean(Effect.void, () =>
        Effect.zipRight(
          Deferred.succeed(inRelease, undefined),
          Effect.zipRight(
            Effect.sleep("50 millis"),
            Effect.sync(() => (finished = true))
          )
        )
      ).pipe(Scope.extend(scope))
      const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
      yield* Deferred.await(inRelease)
      yield* Fiber.interrupt(closing)
      expect(finished).toBe(true)
    })
  )

  it.effect("addFinalizerLean runs its finalizer when the scope closes, after those added later", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const scope = yield* Scope.make()
      yield* addFinalizerLean(Effect.sync(() => order.push("first added"))).pipe(Scope.extend(scope))
      yield* addFinalizerLean(Effect.sync(() => order.push("second added"))).pipe(Scope.extend(scope))
      yield* Scope.close(scope, Exit.void)
      expect(order).toStrictEqual(["second added", "first added"])
    })
  )
})
