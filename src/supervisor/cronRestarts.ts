/** `cron_restart` (docs/configuration.md): restart requests at the times of a cron schedule. */
import { Clock, Duration, Effect, Either, SubscriptionRef } from "effect"
import { nextCronRun, parseCronSchedule } from "../domain/cronSchedule"
import type { Row } from "./Row"

/**
 * Asks for a restart (reason `cron`) at every time of the schedule, in the daemon's local time.
 * A schedule that no longer parses (it was checked when loaded) ends the loop with a warning.
 */
export const cronRestarts = (row: Row, schedule: string) =>
  Effect.gen(function* () {
    const parsed = parseCronSchedule(schedule)
    if (Either.isLeft(parsed))
      return yield* Effect.logWarning(`${row.app.definition.name}: cron_restart not scheduled: ${parsed.left}`)
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      const next = nextCronRun(parsed.right, new Date(now)).getTime()
      yield* Effect.sleep(Duration.millis(Math.max(0, next - now)))
      // A timer may wake a moment early: never fire before the scheduled time.
      const woke = yield* Clock.currentTimeMillis
      if (woke < next) yield* Effect.sleep(Duration.millis(next - woke))
      // PM2 restarts a running app: a row between runs (restarting after a crash) is left alone.
      const { status } = yield* SubscriptionRef.get(row.state)
      if (status === "online" || status === "starting") row.requests.offer("cron")
    }
  })
