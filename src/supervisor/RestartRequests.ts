/**
 * A row's restart requests (the memory limit, health probes, the watcher, cron) and the one wait of
 * its supervisor: until the running process exits or a request comes. At most one request waits;
 * while it waits, later ones are dropped (`offer` answers false), as with a dropping queue of one.
 *
 * The wait is a single callback on both sources, not `Effect.raceFirst` of two forked fibers: a
 * parked race kept ~10 KB of heap per running process (docs/benchmarks.md, "The spawn path, another
 * pass"). An exit is never dropped (it is the process's ExitSignal, not a queue slot), and a
 * request that arrives with no one waiting stays until it is taken or cleared.
 */
import { Effect } from "effect"
import type { ExitSignal } from "./ExitSignal"
import type { RestartReason } from "./Row"
import type { ChildExit } from "./Spawner"

export type Wake =
  | { readonly _tag: "exit"; readonly exit: ChildExit }
  | { readonly _tag: "request"; readonly reason: RestartReason }

export class RestartRequests {
  #pending: RestartReason | undefined = undefined
  #taker: ((reason: RestartReason) => void) | undefined = undefined

  /** Asks for a restart; false when one already waits (this one is dropped). */
  offer(reason: RestartReason): boolean {
    const taker = this.#taker
    if (taker !== undefined) {
      this.#taker = undefined
      taker(reason)
      return true
    }
    if (this.#pending !== undefined) return false
    this.#pending = reason
    return true
  }

  /** Forgets a waiting request (a fresh start owes nothing to requests made before it). */
  clear(): void {
    this.#pending = undefined
  }

  /** Whether a request waits. */
  get waiting(): boolean {
    return this.#pending !== undefined
  }

  /**
   * Waits until `exit` completes or a request comes. An exit already seen wins over a waiting
   * request, which then stays for the next wait (as the race it replaces left it).
   */
  awaitExitOrRequest(exit: ExitSignal): Effect.Effect<Wake> {
    return Effect.async<Wake>((resume) => {
      let done = false
      let stopListening: (() => void) | undefined
      const finish = (wake: Wake): void => {
        if (done) return
        done = true
        stopListening?.()
        if (this.#taker === take) this.#taker = undefined
        resume(Effect.succeed(wake))
      }
      const take = (reason: RestartReason): void => finish({ _tag: "request", reason })
      stopListening = exit.whenExited((result) => finish({ _tag: "exit", exit: result }))
      if (done) return
      const pending = this.#pending
      if (pending !== undefined) {
        this.#pending = undefined
        take(pending)
        return
      }
      this.#taker = take
      return Effect.sync(() => {
        done = true
        stopListening?.()
        if (this.#taker === take) this.#taker = undefined
      })
    })
  }
}
