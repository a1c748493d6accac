import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { nextCronRun, nextRunOf, parseCronSchedule } from "../../src/domain/cronSchedule"

const at = (local: string) => new Date(local)
const next = (schedule: string, after: Date) => nextCronRun(Either.getOrThrow(parseCronSchedule(schedule)), after)

describe("cron_restart schedules (effect's Cron)", () => {
  it("the next run is strictly after the given time, in local time", () => {
    expect(next("* * * * * *", at("2026-03-01T10:00:00.000"))).toEqual(at("2026-03-01T10:00:01.000"))
    expect(next("* * * * * *", at("2026-03-01T10:00:00.600"))).toEqual(at("2026-03-01T10:00:01.000"))
    expect(next("0 3 * * *", at("2026-03-01T03:00:00.000"))).toEqual(at("2026-03-02T03:00:00.000"))
    expect(next("0 3 * * *", at("2026-03-01T02:59:59.000"))).toEqual(at("2026-03-01T03:00:00.000"))
    expect(next("*/15 * * * *", at("2026-03-01T10:07:00.000"))).toEqual(at("2026-03-01T10:15:00.000"))
    expect(next("@hourly", at("2026-03-01T10:07:00.000"))).toEqual(at("2026-03-01T11:00:00.000"))
    expect(next("@weekly", at("2026-03-04T10:00:00.000"))).toEqual(at("2026-03-08T00:00:00.000"))
  })

  it("bad schedules are refused with what is wrong", () => {
    expect(parseCronSchedule("* * * *")).toEqual(Either.left(expect.stringContaining('"* * * *" has 4 fields')))
    expect(parseCronSchedule("* * * * * * *")).toEqual(Either.left(expect.stringContaining("has 7 fields")))
    // The reason only: INVALID_CONFIG's suggestion says what a schedule looks like (said once).
    expect(parseCronSchedule("61 * * * *")).toEqual(
      Either.left('"61 * * * *" is not a cron schedule (expected a value between 0 and 59)')
    )
    expect(parseCronSchedule("* * * *")).toEqual(Either.left('"* * * *" has 4 fields, not 5 or 6'))
    expect(parseCronSchedule("0 0 31 2 *")).toEqual(Either.left(expect.stringContaining("never matches a date")))
  })

  it("nextRunOf gives ISO 8601 UTC, null for a schedule that does not parse", () => {
    expect(nextRunOf("* * * * * *", Date.parse("2026-03-01T10:00:00.000Z"))).toBe("2026-03-01T10:00:01.000Z")
    expect(nextRunOf("nope", Date.now())).toBeNull()
  })
})
