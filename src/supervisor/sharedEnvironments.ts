/**
 * One object for identical environments. Each app keeps the environment it starts from (its
 * caller's, or the daemon's: docs/architecture.md §4), ~40 variables and 2–4 KB of strings, and
 * the apps a user starts one `pmfx start` at a time, or that a restart restores, bring identical
 * copies: equal environments are kept once, as the first app that brought it holds it.
 */
import { isDeepStrictEqual } from "node:util"

export type Environment = Readonly<Record<string, string>>

/** How many distinct environments are remembered (the most recent first). */
const REMEMBERED = 8

export const makeSharedEnvironments = () => {
  const recent: Array<Environment> = []
  return (env: Environment): Environment => {
    const known = recent.findIndex((candidate) => candidate === env || isDeepStrictEqual(candidate, env))
    if (known >= 0) {
      const shared = recent[known]!
      recent.splice(known, 1)
      recent.unshift(shared)
      return shared
    }
    recent.unshift(env)
    if (recent.length > REMEMBERED) recent.pop()
    return env
  }
}
