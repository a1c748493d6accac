/**
 * `cron_restart` schedules (docs/configuration.md): parsed by effect's `Cron` module, never by
 * hand. PM2 (croner) accepts 5 fields (minute precision) or 6 (a leading seconds field) and the
 * nicknames `@yearly` … `@hourly`; those nicknames are spelled out here as the 5-field schedules
 * they stand for. Times are the daemon's local time (its `TZ`).
 */
import { Cron, Either } from "effect"

/** PM2's nicknames, as the standard 5-field schedules they abbreviate. */
const NICKNAMES: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *"
}

export const cronHint =
  'a cron schedule of 5 fields ("0 3 * * *": 03:00 every day) or 6 with seconds first ("*/30 * * * * *"), or @daily, @hourly…'

/** Parses a schedule; the error says what is wrong, for INVALID_CONFIG. */
export const parseCronSchedule = (text: string): Either.Either<Cron.Cron, string> => {
  const written = text.trim()
  const expanded = NICKNAMES[written.toLowerCase()] ?? written
  const fields = expanded.split(/\s+/).length
  if (fields !== 5 && fields !== 6)
    return Either.left(`"${text}" has ${fields} field${fields === 1 ? "" : "s"}, not 5 or 6`)
  return Either.flatMap(
    Either.mapLeft(
      Cron.parse(expanded),
      (error) => `"${text}" is not a cron schedule (${error.message.charAt(0).toLowerCase()}${error.message.slice(1)})`
    ),
    (cron) =>
      // A schedule that matches no date ("0 0 30 2 *", February 30th) would never run.
      Either.try({
        try: () => (Cron.next(cron, new Date()), cron),
        catch: () => `"${text}" never matches a date`
      })
  )
}

/** The next time the schedule fires strictly after `after`. */
export const nextCronRun = (cron: Cron.Cron, after: Date): Date => Cron.next(cron, after)

/** The next run of a written schedule after `nowMs`, ISO 8601 UTC; null when it does not parse. */
export const nextRunOf = (schedule: string, nowMs: number): string | null =>
  Either.match(parseCronSchedule(schedule), {
    onLeft: () => null,
    onRight: (cron) => nextCronRun(cron, new Date(nowMs)).toISOString()
  })
