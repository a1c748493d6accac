/**
 * One lock per key (an app's name), made on first use: work on one key waits for the work before
 * it on that key, and never for another key's.
 */
import { Effect } from "effect"

export const makeKeyedLocks = () => {
  const locks = new Map<string, Effect.Semaphore>()
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    let lock = locks.get(key)
    if (lock === undefined) {
      lock = Effect.unsafeMakeSemaphore(1)
      locks.set(key, lock)
    }
    return lock.withPermits(1)(effect)
  }
}
