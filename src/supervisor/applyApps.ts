/**
 * `POST /api/apply` on the engine (docs/api.md, "POST /api/apply"): the file's apps are planned
 * against the table (`applyPlan.ts`) and each step is carried out under that app's lock by the
 * `ProcessManager` operation it needs. One app's failure is reported for that app; the other apps
 * go on, and are left as they were when their own step fails before it acts.
 */
import { Effect, Option } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import type { PmfxError } from "../domain/errors"
import { isRunningStatus } from "../domain/ProcessStatus"
import type { ProcessSummary } from "../domain/ProcessSummary"
import { type AppAction, type ApplyMode, type CurrentApp, type PlannedApp, planApply } from "./applyPlan"
import { startLevels } from "./bulkOrder"
import { ProcessManager } from "./ProcessManager"

export interface ApplyOptions {
  readonly mode: ApplyMode
  readonly apps: ReadonlyArray<AppDefinition>
  readonly prune: boolean
  readonly dryRun: boolean
  /** The caller's environment: the starting environment of new apps, and of every app with `updateEnv`. */
  readonly env: Readonly<Record<string, string>>
  readonly updateEnv: boolean
}

/** An error as an outcome carries it: the `error` object of the wire shape (docs/api.md §6). */
export interface OutcomeError {
  readonly code: string
  readonly message: string
  readonly details: Readonly<Record<string, unknown>>
}

export interface AppOutcome {
  readonly name: string
  readonly namespace: string
  readonly action: AppAction
  readonly changed_keys: ReadonlyArray<string>
  readonly ok: boolean
  /** A reload that restarted the app instead (one instance, or a cluster whose program changed). */
  readonly restarted_instead?: boolean
  readonly error?: OutcomeError
}

export interface ApplyOutcome {
  readonly apps: ReadonlyArray<AppOutcome>
  /** The rows of the file's apps once it is applied (none for a dry run). */
  readonly processes: ReadonlyArray<ProcessSummary>
}

const asOutcomeError = (error: PmfxError): OutcomeError => ({
  code: error._tag,
  message: error.message,
  details: error.details as Readonly<Record<string, unknown>>
})

/** The table's apps, as the planner sees them. */
const currentApps = Effect.gen(function* () {
  const manager = yield* ProcessManager
  const current = new Map<string, CurrentApp>()
  for (const name of new Set((yield* manager.list()).map((row) => row.name))) {
    const view = yield* manager.app(name)
    if (Option.isNone(view)) continue
    const { definition, baseEnv, rows } = view.value
    current.set(name, { definition, baseEnv, running: rows.filter((row) => isRunningStatus(row.status)).length })
  }
  return current
})

/** Carries out one planned step; its failure becomes the app's outcome. */
const carryOut = (planned: PlannedApp, options: ApplyOptions) =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const baseEnv = options.updateEnv ? options.env : undefined
    const step = planned.step
    const done: Effect.Effect<{ readonly restartedInstead?: boolean }, PmfxError> =
      step._tag === "Create"
        ? Effect.as(manager.create([step.definition], { baseEnv: options.env }), {})
        : step._tag === "Start"
          ? // Started meanwhile by another request: what was asked for holds.
            Effect.as(manager.start(step.name).pipe(Effect.catchTag("PROCESS_ALREADY_RUNNING", () => Effect.void)), {})
          : step._tag === "Redefine"
            ? Effect.map(manager.redefine(step.definition, { run: step.run, baseEnv }), (result) => ({
                restartedInstead: result.restartedInstead
              }))
            : step._tag === "Delete"
              ? Effect.as(manager.delete(step.name), {})
              : Effect.succeed({})
    const { step: _step, ...reported } = planned
    return yield* done.pipe(
      Effect.map(
        (result): AppOutcome => ({
          ...reported,
          ok: true,
          ...(result.restartedInstead === true ? { restarted_instead: true } : {})
        })
      ),
      Effect.catchAll((error) => Effect.succeed<AppOutcome>({ ...reported, ok: false, error: asOutcomeError(error) }))
    )
  })

/**
 * The plan's steps (by index) in groups carried out one after another, the steps of a group at once:
 * the deletions first, one at a time in the plan's order (dependents first); then the file's apps
 * by dependency depth — an app whose `depends_on` names no other app of the plan is in the first
 * group, any other one group after its deepest dependency. 50 independent apps thus spawn together
 * (their saves of state.json coalesce, see src/daemon/StateStore.ts) instead of one after another.
 */
export const applyLevels = (
  plan: ReadonlyArray<PlannedApp>,
  apps: ReadonlyArray<AppDefinition>
): ReadonlyArray<ReadonlyArray<number>> => {
  const definitions = new Map(apps.map((app) => [app.name, app]))
  const deletions: Array<Array<number>> = []
  // The plan lists the file's apps in dependency order, as startLevels wants them.
  const indexOf = new Map<string, number>()
  plan.forEach((planned, index) => {
    if (planned.step._tag === "Delete") deletions.push([index])
    else indexOf.set(planned.name, index)
  })
  const byDepth = startLevels([...indexOf.keys()], (name) => definitions.get(name) ?? { depends_on: [] })
  return [...deletions, ...byDepth.map((level) => level.map((name) => indexOf.get(name)!))]
}

/** Plans the file against the table and, unless `dryRun`, carries the plan out: independent apps at once. */
export const applyApps = (options: ApplyOptions): Effect.Effect<ApplyOutcome, never, ProcessManager> =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const plan = planApply({
      mode: options.mode,
      apps: options.apps,
      current: yield* currentApps,
      prune: options.prune,
      callerEnv: options.updateEnv ? options.env : undefined
    })
    if (options.dryRun)
      return { apps: plan.map(({ step: _step, ...reported }) => ({ ...reported, ok: true })), processes: [] }
    const outcomes: Array<AppOutcome> = new Array(plan.length)
    for (const level of applyLevels(plan, options.apps)) {
      yield* Effect.forEach(
        level,
        (index) => Effect.map(carryOut(plan[index]!, options), (outcome) => void (outcomes[index] = outcome)),
        {
          concurrency: "unbounded",
          discard: true
        }
      )
    }
    const names = new Set(options.apps.map((app) => app.name))
    return { apps: outcomes, processes: (yield* manager.list()).filter((row) => names.has(row.name)) }
  })
