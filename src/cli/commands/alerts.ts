/**
 * `pmfx alerts [app] [--webhooks] [--limit N] [--json]` (docs/cli.md): the daemon's recent alerts,
 * or its recent webhook deliveries with their outcome (GET /api/alerts, GET /api/webhooks/deliveries;
 * the last 100 of each, kept in the daemon's memory), of every app or of the ones `app` names.
 * `--limit` is checked here, in the CLI's own words, before the daemon is asked.
 */
import { Args, Command, Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import { ProcessNotFound } from "../../domain/errors"
import type { ProcessSummary } from "../../domain/ProcessSummary"
import { HISTORY_CAPACITY, type AlertRecord, type WebhookDeliveryRecord } from "../../domain/NotificationRecords"
import { withDaemon } from "../daemonCall"
import { entriesOf } from "../historyFilter"
import { failWith, printJson } from "../output"
import { columns, style } from "../style"
import { optionValue } from "../usage"
import { jsonOption } from "./configOptions"

const webhooksOption = Options.boolean("webhooks").pipe(
  Options.withDescription(
    "the webhook deliveries (outcome, target with secrets redacted, attempts) instead of the alerts"
  )
)

/** `--limit`: a whole number from 1 to the entries the daemon keeps. */
const parseLimit = (text: string): Either.Either<number, string> => {
  if (!/^\d+$/.test(text.trim())) return Either.left(`${JSON.stringify(text)} is not a whole number`)
  const limit = Number(text)
  if (limit < 1) return Either.left(`${limit} entries is none at all`)
  if (limit > HISTORY_CAPACITY)
    return Either.left(`${limit} is more than the ${HISTORY_CAPACITY} entries the daemon keeps`)
  return Either.right(limit)
}

const limitOption = Options.text("limit").pipe(
  Options.withPseudoName("n"),
  Options.withDescription(`the newest n entries, 1 to ${HISTORY_CAPACITY} (default: all the daemon keeps)`),
  Options.mapEffect(
    optionValue(
      "--limit",
      parseLimit,
      `--limit takes a number from 1 to ${HISTORY_CAPACITY}, like --limit 10; leave it out for all ${HISTORY_CAPACITY}`
    )
  ),
  Options.optional
)

const appArg = Args.text({ name: "id|name|namespace" }).pipe(
  Args.withDescription("only the alerts (or deliveries) of these processes: an id, an app name or a namespace"),
  Args.optional
)

/** Oldest first, as a log reads: the newest line is the last one on the screen. */
const alertLines = (alerts: ReadonlyArray<AlertRecord>): Array<string> =>
  columns(
    [...alerts]
      .reverse()
      .map((alert) => [
        style.dim(process.stdout)(alert.timestamp),
        alert.kind === "process_crash" || alert.kind === "restart_loop"
          ? style.red(process.stdout)(alert.kind)
          : style.yellow(process.stdout)(alert.kind),
        alert.message
      ])
  )

const outcome = (delivery: WebhookDeliveryRecord): string =>
  delivery.outcome === "delivered"
    ? style.green(process.stdout)(`delivered ${delivery.status ?? ""}`.trimEnd())
    : style.red(process.stdout)(`${delivery.outcome}: ${delivery.error ?? "no answer"}`)

const deliveryLines = (deliveries: ReadonlyArray<WebhookDeliveryRecord>): Array<string> =>
  columns(
    [...deliveries]
      .reverse()
      .map((delivery) => [
        style.dim(process.stdout)(delivery.timestamp),
        outcome(delivery),
        `${delivery.event} of ${delivery.process.name}`,
        delivery.url,
        style.dim(process.stdout)(
          `${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}, ${delivery.duration_ms} ms`
        )
      ])
  )

/** ` of api` in "no alert of api since…" when one app was asked for. */
const forApp = (app: Option.Option<string>) => Option.match(app, { onNone: () => "", onSome: (a) => ` of ${a}` })

/** A line under the list when the daemon has forgotten older entries. */
const dropped = (recorded: number, shown: number, capacity: number, what: string): Array<string> =>
  recorded > capacity && shown === capacity
    ? [style.dim(process.stdout)(`(${recorded - capacity} older ${what} since the daemon started are no longer kept)`)]
    : []

export const alertsCommand = Command.make(
  "alerts",
  { app: appArg, webhooks: webhooksOption, limit: limitOption, json: jsonOption },
  ({ app, webhooks, limit, json }) =>
    Effect.gen(function* () {
      // For one app the daemon's whole history is read and picked from here, then cut to --limit.
      const urlParams = Option.isSome(app)
        ? {}
        : Option.match(limit, { onNone: () => ({}), onSome: (n) => ({ limit: String(n) }) })
      const picked = <E extends { readonly process: { readonly id: number; readonly name: string } }>(
        rows: ReadonlyArray<ProcessSummary>,
        entries: ReadonlyArray<E>
      ) =>
        Option.match(app, {
          onNone: () => Effect.succeed(entries),
          onSome: (selector) => {
            const found = entriesOf(rows, entries, selector)
            return found instanceof ProcessNotFound
              ? failWith(found, json)
              : Effect.succeed(
                  found.slice(
                    0,
                    Option.getOrElse(limit, () => HISTORY_CAPACITY)
                  )
                )
          }
        })
      type Api = Parameters<Parameters<typeof withDaemon>[1]>[0]
      const rowsOf = (api: Api) =>
        Option.isSome(app) ? api.processes.list({ urlParams: {} }) : Effect.succeed([] as const)
      if (webhooks) {
        const [rows, history] = yield* withDaemon(json, (api) =>
          Effect.all([rowsOf(api), api.history.deliveries({ urlParams })])
        )
        const deliveries = yield* picked(rows, history.deliveries)
        if (json) return yield* printJson({ ...history, deliveries })
        if (deliveries.length === 0)
          return yield* Console.log(`no webhook delivery${forApp(app)} since the daemon started`)
        return yield* Console.log(
          [
            ...deliveryLines(deliveries),
            ...dropped(history.recorded, history.deliveries.length, history.capacity, "deliveries")
          ].join("\n")
        )
      }
      const [rows, history] = yield* withDaemon(json, (api) =>
        Effect.all([rowsOf(api), api.history.alerts({ urlParams })])
      )
      const alerts = yield* picked(rows, history.alerts)
      if (json) return yield* printJson({ ...history, alerts })
      if (alerts.length === 0) return yield* Console.log(`no alert${forApp(app)} since the daemon started`)
      yield* Console.log(
        [...alertLines(alerts), ...dropped(history.recorded, history.alerts.length, history.capacity, "alerts")].join(
          "\n"
        )
      )
    })
).pipe(
  Command.withDescription(
    "Print the daemon's recent alerts (its last 100, oldest first), of every app or of one (id, name or namespace), or with --webhooks its recent webhook deliveries and their outcome"
  )
)
