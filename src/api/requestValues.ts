/** Checks of values that arrive as strings in paths and query strings (each bad one is BAD_REQUEST). */
import { Effect, Either } from "effect"
import { parseDuration } from "../domain/Duration"
import { BadRequest } from "../domain/errors"
import { type ProcessStatus, processStatuses } from "../domain/ProcessStatus"

export const badRequest = (field: string, reason: string, suggestion: string) =>
  new BadRequest({ message: `Invalid ${field}: ${reason}`, details: { field, reason, suggestion } })

/** A comma-separated list of process states, each one known. */
export const parseStatuses = (field: string, text: string): Effect.Effect<ReadonlyArray<ProcessStatus>, BadRequest> => {
  const parts = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
  const unknown = parts.filter((s) => !(processStatuses as ReadonlyArray<string>).includes(s))
  if (parts.length === 0 || unknown.length > 0) {
    return Effect.fail(badRequest(field, `${JSON.stringify(unknown[0] ?? text)} is not a process state`, `use one or more of ${processStatuses.join(", ")}, separated by commas`))
  }
  return Effect.succeed(parts as Array<ProcessStatus>)
}

export const parseWholeNumber = (field: string, text: string | undefined, min = 0): Effect.Effect<number | undefined, BadRequest> => {
  if (text === undefined) return Effect.succeed(undefined)
  return /^\d+$/.test(text.trim()) && Number(text) >= min
    ? Effect.succeed(Number(text))
    : Effect.fail(badRequest(field, `${JSON.stringify(text)} is not a whole number${min > 0 ? ` of at least ${min}` : ""}`, `give ${field} as digits, like ${field}=${Math.max(min, 10)}`))
}

export const parseDurationParam = (field: string, text: string | undefined, fallbackMs: number): Effect.Effect<number, BadRequest> => {
  if (text === undefined) return Effect.succeed(fallbackMs)
  return Either.match(parseDuration(text), {
    onLeft: (reason) => Effect.fail(badRequest(field, reason, "use a duration like 500ms, 30s or 2m")),
    onRight: Effect.succeed
  })
}

/** `name` filter: exact, or a glob with `*`. */
export const nameMatcher = (pattern: string): ((name: string) => boolean) => {
  if (!pattern.includes("*")) return (name) => name === pattern
  const regexp = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`)
  return (name) => regexp.test(name)
}
