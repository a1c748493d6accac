/**
 * `pmfx alerts [--webhooks] [--limit N] [--json]` (docs/cli.md): the daemon's recent alerts, or
 * its recent webhook deliveries with their outcome (GET /api/alerts, GET /api/webhooks/deliveries;
 * the last 100 of each, kept in the daemon's memory). `--limit` is checked by the daemon.
 */
import { Command, Options } from "@effect/cli"
import { Console, Effect, Option } from "effect"
import type { AlertRecord, WebhookDeliveryRecord } from "../../domain/NotificationRecords"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { columns, style } from "../style"
import { jsonOption } from "./configOptions"

const out = process.stdout

const webhooksOption = Options.boolean("webhooks").pipe(
  Options.withDescription(
    "the webhook deliveries (outcome, target with secrets redacted, attempts) instead of the alerts"
  )
)

const limitOption = Options.text("limit").pipe(
  Options.withPseudoName("n"),
  Options.withDescription("the newest n entries, 1 to 100 (default: all the daemon keeps)"),
  Options.optional
)

/** Oldest first, as a log reads: the newest line is the last one on the screen. */
const alertLines = (alerts: ReadonlyArray<AlertRecord>): Array<string> =>
  columns(
    [...alerts]
      .reverse()
      .map((alert) => [
        style.dim(out)(alert.timestamp),
        alert.kind === "process_crash" || alert.kind === "restart_loop"
          ? style.red(out)(alert.kind)
          : style.yellow(out)(alert.kind),
        alert.message
      ])
  )

const outcome = (delivery: WebhookDeliveryRecord): string =>
  delivery.outcome === "delivered"
    ? style.green(out)(`delivered ${delivery.status ?? ""}`.trimEnd())
    : style.red(out)(`${delivery.outcome}: ${delivery.error ?? "no answer"}`)

const deliveryLines = (deliveries: ReadonlyArray<WebhookDeliveryRecord>): Array<string> =>
  columns(
    [...deliveries]
      .reverse()
      .map((delivery) => [
        style.dim(out)(delivery.timestamp),
        outcome(delivery),
        `${delivery.event} of ${delivery.process.name}`,
        delivery.url,
        style.dim(out)(`${delivery.attempts} attempt${delivery.attempts === 1 ? "" : "s"}, ${delivery.duration_ms} ms`)
      ])
  )

/** A line under the list when the daemon has forgotten older entries. */
const dropped = (recorded: number, shown: number, capacity: number, what: string): Array<string> =>
  recorded > capacity && shown === capacity
    ? [style.dim(out)(`(${recorded - capacity} older ${what} since the daemon started are no longer kept)`)]
    : []

export const alertsCommand = Command.make(
  "alerts",
  { webhooks: webhooksOption, limit: limitOption, json: jsonOption },
  ({ webhooks, limit, json }) =>
    Effect.gen(function* () {
      const urlParams = Option.match(limit, { onNone: () => ({}), onSome: (n) => ({ limit: n }) })
      if (webhooks) {
        const history = yield* withDaemon(json, (api) => api.history.deliveries({ urlParams }))
        if (json) return yield* printJson(history)
        if (history.deliveries.length === 0) return yield* Console.log("no webhook delivery since the daemon started")
        return yield* Console.log(
          [
            ...deliveryLines(history.deliveries),
            ...dropped(history.recorded, history.deliveries.length, history.capacity, "deliveries")
          ].join("\n")
        )
      }
      const history = yield* withDaemon(json, (api) => api.history.alerts({ urlParams }))
      if (json) return yield* printJson(history)
      if (history.alerts.length === 0) return yield* Console.log("no alert since the daemon started")
      yield* Console.log(
        [
          ...alertLines(history.alerts),
          ...dropped(history.recorded, history.alerts.length, history.capacity, "alerts")
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription(
    "Print the daemon's recent alerts (its last 100, oldest first), or with --webhooks its recent webhook deliveries and their outcome"
  )
)
