/**
 * A supervised process's exit, as its producer (Spawner, watchAdopted, ClusterHost) learns it. It
 * can be awaited like a Deferred, and it also tells a plain listener, which is what lets a row's
 * supervisor wait for "exit or restart request" as one callback instead of racing two fibers
 * (RestartRequests; docs/decisions.md, "The spawn path, another pass").
 */
import { Effect } from "effect"
import type { ChildExit } from "./Spawner"

export class ExitSignal {
  #exit: ChildExit | undefined = undefined
  #listeners: Array<(exit: ChildExit) => void> | undefined = undefined

  /** How the process ended, once it has. */
  get exited(): ChildExit | undefined {
    return this.#exit
  }

  /** Records the exit and tells every listener; only the first call counts (false for later ones). */
  complete(exit: ChildExit): boolean {
    if (this.#exit !== undefined) return false
    this.#exit = exit
    const listeners = this.#listeners
    this.#listeners = undefined
    if (listeners !== undefined) for (const listener of listeners) listener(exit)
    return true
  }

  /** Calls `listener` once the process has exited (at once if it has); returns how to stop listening. */
  whenExited(listener: (exit: ChildExit) => void): () => void {
    if (this.#exit !== undefined) {
      listener(this.#exit)
      return noop
    }
    const listeners = (this.#listeners ??= [])
    listeners.push(listener)
    return () => {
      const at = listeners.indexOf(listener)
      if (at >= 0) listeners.splice(at, 1)
    }
  }

  /** Waits for the exit (interruptible). */
  get await(): Effect.Effect<ChildExit> {
    return Effect.async<ChildExit>((resume) => Effect.sync(this.whenExited((exit) => resume(Effect.succeed(exit)))))
  }
}

const noop = (): void => {}
