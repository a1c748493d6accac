/** Handlers of `GET /api/alerts` and `GET /api/webhooks/deliveries` (docs/api.md, "Alert and webhook history"). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { HISTORY_CAPACITY } from "../../domain/NotificationRecords"
import { NotificationHistory } from "../../events/NotificationHistory"
import { PmfxApi } from "../../shared/Api"
import { badRequest, parseWholeNumber } from "../requestValues"

/** `limit`: 1 to `HISTORY_CAPACITY`, all that is kept when absent. */
const historyLimit = (text: string | undefined) =>
  Effect.gen(function* () {
    const limit = yield* parseWholeNumber("limit", text, 1)
    if (limit === undefined) return HISTORY_CAPACITY
    if (limit > HISTORY_CAPACITY) {
      return yield* badRequest(
        "limit",
        `${limit} is more than the ${HISTORY_CAPACITY} entries the daemon keeps`,
        `ask for at most limit=${HISTORY_CAPACITY}, or leave limit out for all of them`
      )
    }
    return limit
  })

export const HistoryHandlers = HttpApiBuilder.group(PmfxApi, "history", (handlers) =>
  Effect.gen(function* () {
    const history = yield* NotificationHistory
    return handlers
      .handle("alerts", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* history.alerts(yield* historyLimit(urlParams.limit))
          return { capacity: page.capacity, recorded: page.recorded, alerts: page.entries }
        })
      )
      .handle("deliveries", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* history.deliveries(yield* historyLimit(urlParams.limit))
          return { capacity: page.capacity, recorded: page.recorded, deliveries: page.entries }
        })
      )
  })
)
