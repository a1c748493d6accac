/**
 * Waiting for an app's `depends_on` apps (docs/architecture.md §4, depends_on): each entry names a
 * condition — `online` (and up for its `min_uptime`), `healthy`, `completed_successfully` or
 * `log_ready` — that every instance of the dependency must meet before the dependent's processes
 * are spawned. A dependency that can no longer meet it fails the dependent's start at once, with
 * the reason and what to do; one that takes too long fails it after the engine's timeout.
 */
import { Clock, Duration, Effect, Option } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import { conditionWords, type Dependency, type DependencyCondition, unreachableCondition } from "../domain/Dependency"
import { ProcessStartFailed } from "../domain/errors"
import type { Row, RowState } from "./Row"
import { hasHealthCheck } from "./Row"
import { awaitRow } from "./Supervisor"

/** What one instance's state says about a condition. */
type Verdict =
  | { readonly _tag: "Met" }
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Never"; readonly why: string; readonly suggestion: string }

const met: Verdict = { _tag: "Met" }
const pending: Verdict = { _tag: "Pending" }

const exitText = (state: RowState): string => {
  const exit = state.lastExit
  if (exit === null) return ""
  return exit.signal !== null
    ? ` (killed by ${exit.signal})`
    : exit.code !== null
      ? ` (exited with code ${exit.code})`
      : ""
}

/** A dependency that settled where it stays until someone acts: errored, or stopped. */
const settled = (dependency: string, dependent: string, state: RowState): Verdict | undefined => {
  if (state.status === "errored") {
    return {
      _tag: "Never",
      why: `is errored${exitText(state)}`,
      suggestion: `see why with \`pmfx logs ${dependency}\`, fix it and start it (pmfx start ${dependency}), then start ${dependent} again`
    }
  }
  if (state.status === "stopped") {
    return {
      _tag: "Never",
      why: "is stopped",
      suggestion: `start ${dependency} first (pmfx start ${dependency}), then ${dependent}`
    }
  }
  return undefined
}

const judge = (row: Row, condition: DependencyCondition, dependent: string, state: RowState): Verdict => {
  const dependency = row.app.definition.name
  switch (condition) {
    case "online":
      return state.status === "online" ? met : (settled(dependency, dependent, state) ?? pending)
    case "healthy":
      return state.status === "online" && hasHealthCheck(row.app.definition) && state.health.status === "healthy"
        ? met
        : (settled(dependency, dependent, state) ?? pending)
    case "log_ready":
      return state.readyLine && state.pid !== null && (state.status === "online" || state.status === "starting")
        ? met
        : (settled(dependency, dependent, state) ?? pending)
    case "completed_successfully": {
      const exit = state.lastExit
      if (
        state.status === "stopped" &&
        state.desired === "running" &&
        exit !== null &&
        exit.code === 0 &&
        exit.signal === null
      )
        return met
      if (state.status === "stopped" && state.desired === "running" && exit === null) {
        return {
          _tag: "Never",
          why: "has not run (it is stopped)",
          suggestion: `start ${dependency} (pmfx start ${dependency}), then ${dependent}`
        }
      }
      return settled(dependency, dependent, state) ?? pending
    }
  }
}

/**
 * For `online`: the first state that is online *and* has stayed up for the row's `min_uptime` —
 * `online` alone comes at once, even for a process that exits a moment later — or one where the
 * condition can no longer be met.
 */
const awaitStableOnline = (row: Row, dependent: string): Effect.Effect<Verdict> =>
  Effect.gen(function* () {
    for (;;) {
      const state = yield* awaitRow(row, (s) => judge(row, "online", dependent, s)._tag !== "Pending")
      const verdict = judge(row, "online", dependent, state)
      if (verdict._tag !== "Met") return verdict
      const now = yield* Clock.currentTimeMillis
      const left = row.app.definition.min_uptime - (now - (state.startedAt ?? now))
      if (left <= 0) return verdict
      // The rest of min_uptime, unless the process exits or is replaced meanwhile (then look again).
      const changed = yield* awaitRow(row, (s) => s.status !== "online" || s.startedAt !== state.startedAt).pipe(
        Effect.timeoutOption(Duration.millis(left))
      )
      if (Option.isNone(changed)) return verdict
    }
  })

const awaitCondition = (row: Row, condition: DependencyCondition, dependent: string): Effect.Effect<Verdict> =>
  condition === "online"
    ? awaitStableOnline(row, dependent)
    : Effect.map(
        awaitRow(row, (s) => judge(row, condition, dependent, s)._tag !== "Pending"),
        (state) => judge(row, condition, dependent, state)
      )

/** What a waiting row says it waits for: `db to be healthy, cache to be online`. */
export const waitingText = (app: AppDefinition): string =>
  app.depends_on.map((dependency) => `${dependency.name} ${conditionWords[dependency.condition]}`).join(", ")

/**
 * Waits until every instance of `dependency` meets its condition; PROCESS_START_FAILED for `app`
 * when one never will, or not within `timeoutMs`.
 */
export const awaitDependency = (
  app: AppDefinition,
  dependency: Dependency,
  dependencyRows: ReadonlyArray<Row>,
  timeoutMs: number
): Effect.Effect<void, ProcessStartFailed> =>
  Effect.gen(function* () {
    const fail = (reason: string, suggestion: string) =>
      new ProcessStartFailed({
        message: `${app.name} was not started: ${reason}`,
        details: {
          process_id: app.name,
          reason,
          dependency: dependency.name,
          condition: dependency.condition,
          suggestion
        }
      })
    const wanted = `${dependency.name} ${conditionWords[dependency.condition]}`
    if (dependencyRows.length === 0) {
      return yield* fail(
        `its dependency ${dependency.name} is not defined`,
        `start ${dependency.name} first, then ${app.name}`
      )
    }
    const verdicts = yield* Effect.forEach(
      dependencyRows,
      (row) => awaitCondition(row, dependency.condition, app.name),
      { concurrency: "unbounded" }
    ).pipe(Effect.timeoutOption(Duration.millis(timeoutMs)))
    if (Option.isNone(verdicts)) {
      return yield* fail(
        `it waited ${timeoutMs / 1000}s for ${wanted}, in vain`,
        `check ${dependency.name} with \`pmfx show ${dependency.name}\` and \`pmfx logs ${dependency.name}\`, then start ${app.name} again`
      )
    }
    const never = verdicts.value.find((verdict) => verdict._tag === "Never")
    if (never !== undefined && never._tag === "Never") {
      return yield* fail(`it waits for ${wanted}, but ${dependency.name} ${never.why}`, never.suggestion)
    }
  })

/**
 * Why `dependency` cannot be waited for, given the definition of the app it names (undefined: no
 * such app): checked when apps are added to the table, as a file's own apps are when it is loaded.
 */
export const dependencyProblem = (
  dependency: Dependency,
  definition: AppDefinition | undefined
): { readonly message: string; readonly suggestion: string } | undefined =>
  definition === undefined
    ? { message: `no app named "${dependency.name}"`, suggestion: "start it in the same file or before this one" }
    : unreachableCondition(dependency.name, dependency.condition, {
        hasHealthCheck: hasHealthCheck(definition),
        readyLogLine: definition.ready_log_line,
        restartsAfterCleanExit: definition.autorestart && !definition.stop_exit_codes.includes(0)
      })
