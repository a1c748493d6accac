import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { ExitSignal } from "../../src/supervisor/ExitSignal"
import { RestartRequests } from "../../src/supervisor/RestartRequests"

const crash = { code: 1, signal: null } as const

/** Lets a forked fiber run up to its wait. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("RestartRequests: the supervisor's one wait for an exit or a restart request", () => {
  it("keeps at most one request waiting: a second one is dropped (false) until the first is taken", () => {
    const requests = new RestartRequests()
    expect(requests.offer("memory")).toBe(true)
    expect(requests.offer("health")).toBe(false)
    expect(requests.waiting).toBe(true)
    requests.clear()
    expect(requests.waiting).toBe(false)
    expect(requests.offer("cron")).toBe(true)
  })

  it.effect("a request that waits is taken at once; the next request is accepted again", () =>
    Effect.gen(function* () {
      const requests = new RestartRequests()
      requests.offer("watch")
      expect(yield* requests.awaitExitOrRequest(new ExitSignal())).toEqual({ _tag: "request", reason: "watch" })
      expect(requests.waiting).toBe(false)
      expect(requests.offer("cron")).toBe(true)
    })
  )

  it.effect("a request made while the supervisor waits wakes it, and is not kept for later", () =>
    Effect.gen(function* () {
      const requests = new RestartRequests()
      const exit = new ExitSignal()
      const waiter = yield* Effect.fork(requests.awaitExitOrRequest(exit))
      yield* settle
      expect(requests.offer("health")).toBe(true)
      expect(yield* Fiber.join(waiter)).toEqual({ _tag: "request", reason: "health" })
      expect(requests.waiting).toBe(false)
      // The process's exit after the wake reaches the next wait, never lost.
      exit.complete(crash)
      expect(yield* requests.awaitExitOrRequest(exit)).toEqual({ _tag: "exit", exit: crash })
    })
  )

  it.effect("an exit wakes the waiting supervisor, also when a request waits with it; the request stays", () =>
    Effect.gen(function* () {
      const requests = new RestartRequests()
      const exit = new ExitSignal()
      const waiter = yield* Effect.fork(requests.awaitExitOrRequest(exit))
      yield* settle
      expect(exit.complete(crash)).toBe(true)
      expect(exit.complete({ code: 0, signal: null })).toBe(false)
      expect(yield* Fiber.join(waiter)).toEqual({ _tag: "exit", exit: crash })
      // An exit already seen wins over a waiting request, which stays for the next run.
      requests.offer("memory")
      expect(yield* requests.awaitExitOrRequest(exit)).toEqual({ _tag: "exit", exit: crash })
      expect(requests.waiting).toBe(true)
      expect(yield* requests.awaitExitOrRequest(new ExitSignal())).toEqual({ _tag: "request", reason: "memory" })
    })
  )

  it.effect("an interrupted wait takes nothing: a later request waits for the next one", () =>
    Effect.gen(function* () {
      const requests = new RestartRequests()
      const exit = new ExitSignal()
      const waiter = yield* Effect.fork(requests.awaitExitOrRequest(exit))
      yield* settle
      yield* Fiber.interrupt(waiter)
      expect(requests.offer("cron")).toBe(true)
      expect(requests.waiting).toBe(true)
      // The exit still reaches a later wait, which wins over the waiting request.
      exit.complete(crash)
      expect(yield* exit.await).toEqual(crash)
      expect(yield* requests.awaitExitOrRequest(exit)).toEqual({ _tag: "exit", exit: crash })
      expect(requests.waiting).toBe(true)
    })
  )
})
