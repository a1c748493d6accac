import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { makeSharedEnvironments } from "../../src/supervisor/sharedEnvironments"
import { definitions, withEngine } from "../support/engine"

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  LANG: "C.UTF-8",
  ...extra
})

describe("identical environments kept once", () => {
  it("gives back the first of equal environments, and a different one as it is", () => {
    const share = makeSharedEnvironments()
    const first = env()
    expect(share(first)).toBe(first)
    expect(share(env())).toBe(first)
    const other = env({ NODE_ENV: "production" })
    expect(share(other)).toBe(other)
    expect(share(env())).toBe(first)
  })

  it("forgets the least recently seen past eight distinct ones", () => {
    const share = makeSharedEnvironments()
    const first = env({ N: "0" })
    share(first)
    for (let i = 1; i <= 8; i++) share(env({ N: String(i) }))
    const again = env({ N: "0" })
    expect(share(again)).toBe(again)
  })

  it.live("apps started one request at a time with equal environments share one; --update-env gives one its own", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const idle = (name: string) => ({ name, script: "sleep", args: ["1000"] })
        yield* pm.create(yield* definitions([idle("a")]), { baseEnv: env() })
        yield* pm.create(yield* definitions([idle("b")]), { baseEnv: env() })
        const [a] = yield* pm.rowsFor("a")
        const [b] = yield* pm.rowsFor("b")
        expect(b!.app.baseEnv).toBe(a!.app.baseEnv)
        yield* pm.restart("b", { baseEnv: env({ FEATURE: "on" }) })
        const [b2] = yield* pm.rowsFor("b")
        expect(b2!.app.baseEnv).toStrictEqual(env({ FEATURE: "on" }))
        // The other app keeps the environment it started from.
        const [a2] = yield* pm.rowsFor("a")
        expect(a2!.app.baseEnv).toStrictEqual(env())
      })
    )
  )
})
