import { describe, expect, it } from "@effect/vitest"
import { Context, Deferred, Effect, Exit, Fiber, type FiberRefs, Scope, TestClock } from "effect"
import { makeDetachedFork } from "../../src/supervisor/detachedFork"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, PATH_ENV, withEngine } from "../support/engine"

/** Stands for an HTTP request's service: what a row's fiber must not keep. */
class Request extends Context.Tag("test/Request")<Request, { readonly body: string }>() {}

/** Whether any fiber ref of the fiber, at any depth of its history, holds a context with a `Request`. */
const remembersRequest = (refs: FiberRefs.FiberRefs) =>
  [...refs.locals.values()].some((stack) =>
    stack.some(([, value]) => Context.isContext(value) && Context.getOption(value, Request)._tag === "Some")
  )

describe("forking a long-lived fiber as the engine's descendant", () => {
  it.scoped("keeps nothing of the caller's services, where Effect.forkIn keeps them", () =>
    Effect.gen(function* () {
      const scope = yield* Effect.scope
      const fork = yield* makeDetachedFork(scope)
      const asRequest = Effect.provideService(Request, { body: "a request" })
      const detached = yield* asRequest(fork(Effect.never))
      const forked = yield* asRequest(Effect.forkIn(Effect.never, scope))
      expect(remembersRequest(detached.getFiberRefs())).toBe(false)
      // The contrast, so that the check above can fail: a plain fork keeps the request.
      expect(remembersRequest(forked.getFiberRefs())).toBe(true)
    })
  )

  it.effect("runs in the scope: closing it interrupts the fiber", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const fork = yield* makeDetachedFork(scope)
      const started = yield* Deferred.make<void>()
      const fiber = yield* fork(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
      yield* Deferred.await(started)
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
    })
  )

  it.effect("is interruptible when made inside an uninterruptible region, and keeps the maker's clock", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const fork = yield* Effect.uninterruptible(makeDetachedFork(scope))
      // The test clock: the fiber sleeps until the test adjusts it.
      const fiber = yield* fork(Effect.as(Effect.sleep("1 hour"), "woke"))
      yield* TestClock.adjust("1 hour")
      expect(yield* Fiber.join(fiber)).toBe("woke")
      const waiting = yield* fork(Effect.never)
      yield* Fiber.interrupt(waiting)
      expect(Exit.isInterrupted(yield* Fiber.await(waiting))).toBe(true)
      yield* Scope.close(scope, Exit.void)
    })
  )
})

describe("a row's supervisor", () => {
  it.live("keeps nothing of the request that started the row", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const apps = yield* definitions([
          { name: "idle", script: process.execPath, args: ["-e", "setInterval(()=>{},1000)"] }
        ])
        yield* pm
          .create(apps, { baseEnv: PATH_ENV })
          .pipe(Effect.provideService(Request, { body: "POST /api/processes" }))
        const [row] = yield* pm.rowsFor("idle")
        expect(row!.fiber).not.toBeNull()
        expect(remembersRequest(row!.fiber!.getFiberRefs())).toBe(false)
      })
    )
  )
})
