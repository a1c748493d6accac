/**
 * `POST /api/apply` checks `depends_on` conditions between the apps of one request, as the loader
 * does for a file (docs/configuration.md, depends_on): a request built by hand gets the same
 * INVALID_CONFIG before anything changes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { checkApplyApps } from "../../src/api/handlers/applyRequest"
import { testApp } from "../logs/helpers"

describe("POST /api/apply: depends_on conditions", () => {
  it.effect("a condition an app of the request can never meet is INVALID_CONFIG at its field", () =>
    Effect.gen(function* () {
      const db = testApp({ name: "db" })
      const api = testApp({
        name: "api",
        depends_on: [
          { name: "db", condition: "healthy" },
          { name: "cache", condition: "log_ready" }
        ]
      })
      const error = yield* Effect.flip(checkApplyApps([db, api], new Set(["cache"])))
      expect(error._tag).toBe("INVALID_CONFIG")
      // cache is in the table, not the request: its name is enough here (the engine checks it on creation).
      expect(error.details.problems).toEqual([
        {
          field: "apps[1].depends_on[0].condition",
          value: "healthy",
          message: '"db" has no health check, so it can never be healthy',
          suggestion: 'add a health_check to db, or wait for condition "online"'
        }
      ])
      yield* checkApplyApps(
        [
          testApp({ name: "db", autorestart: false }),
          testApp({ name: "api", depends_on: [{ name: "db", condition: "completed_successfully" }] })
        ],
        new Set()
      )
    })
  )
})
