/**
 * The plan of `POST /api/apply` (docs/api.md, "POST /api/apply"): what applying a file does to
 * each app, from the file's definitions and the apps the table holds. Pure: the caller reads the
 * table, this decides, `applyApps.ts` acts.
 */
import { isDeepStrictEqual } from "node:util"
import { AppDefinition } from "../domain/AppDefinition"
import { dependencyOrder } from "./dependencyOrder"

/**
 * start: apps not running start, running ones are left as they are (PM2's `start <file>`);
 * restart / reload: every app of the file runs its current definition again;
 * apply: only what changed is restarted (reloaded where it can be), and `prune` deletes the rest.
 */
export type ApplyMode = "start" | "restart" | "reload" | "apply"

/**
 * What happens to one app. `create`: new; `start`: it was not running and starts; `restart` /
 * `reload`: runs the file's definition again; `update` (apply): its definition changed — it is
 * reloaded or restarted when it runs, stored for its next start when it does not; `unchanged`:
 * nothing to do; `changed` (start): it runs an older definition and is left running; `delete`
 * (apply with prune): not in the file any more.
 */
export type AppAction = "create" | "start" | "restart" | "reload" | "update" | "unchanged" | "changed" | "delete"

/** The pseudo-key reported when `update_env` gives an app a different starting environment. */
export const CALLER_ENV_KEY = "caller_env"

/** An app as the table holds it. */
export interface CurrentApp {
  readonly definition: AppDefinition
  readonly baseEnv: Readonly<Record<string, string>>
  /** How many of its rows have (or are about to have) a process. */
  readonly running: number
}

/** How the apply operation carries out one step. */
export type Step =
  | { readonly _tag: "Create"; readonly definition: AppDefinition }
  /** Start the rows not running, with the definition the app has (nothing changed). */
  | { readonly _tag: "Start"; readonly name: string }
  | { readonly _tag: "Redefine"; readonly definition: AppDefinition; readonly run: "restart" | "reload" | "keep" }
  | { readonly _tag: "Delete"; readonly name: string }
  | { readonly _tag: "Nothing" }

export interface PlannedApp {
  readonly name: string
  readonly namespace: string
  readonly action: AppAction
  /** Top-level settings that differ from the app's current definition (plus `caller_env`). */
  readonly changed_keys: ReadonlyArray<string>
  readonly step: Step
}

export interface PlanInput {
  readonly mode: ApplyMode
  readonly apps: ReadonlyArray<AppDefinition>
  /** The table's apps by name (every app, for `prune`). */
  readonly current: ReadonlyMap<string, CurrentApp>
  readonly prune: boolean
  /** With `update_env`: the caller's environment, which becomes each app's starting environment. */
  readonly callerEnv?: Readonly<Record<string, string>> | undefined
}

// `config_file` records where the definition came from; it is no setting to act on.
const SETTINGS = (Object.keys(AppDefinition.fields) as ReadonlyArray<keyof AppDefinition>).filter(
  (key) => key !== "config_file"
)

/** The top-level settings whose values differ (deep comparison; key order does not matter). */
export const changedKeys = (before: AppDefinition, after: AppDefinition): ReadonlyArray<string> =>
  SETTINGS.filter((key) => !isDeepStrictEqual(before[key], after[key]))

/**
 * Whether a running app can be reloaded (one instance at a time, the others serving): with more
 * than one instance, or in cluster mode (docs/architecture.md §4); otherwise it is restarted.
 */
export const canReload = (app: AppDefinition): boolean => app.instances > 1 || app.exec_mode === "cluster"

const planOne = (input: PlanInput, app: AppDefinition): PlannedApp => {
  const base = { name: app.name, namespace: app.namespace }
  const current = input.current.get(app.name)
  if (current === undefined)
    return { ...base, action: "create", changed_keys: [], step: { _tag: "Create", definition: app } }
  const envChanged = input.callerEnv !== undefined && !isDeepStrictEqual(current.baseEnv, input.callerEnv)
  const keys = [...changedKeys(current.definition, app), ...(envChanged ? [CALLER_ENV_KEY] : [])]
  const running = current.running > 0
  switch (input.mode) {
    case "start":
      if (running)
        return {
          ...base,
          action: keys.length === 0 ? "unchanged" : "changed",
          changed_keys: keys,
          step: { _tag: "Nothing" }
        }
      return {
        ...base,
        action: "start",
        changed_keys: keys,
        step:
          keys.length === 0 ? { _tag: "Start", name: app.name } : { _tag: "Redefine", definition: app, run: "restart" }
      }
    case "restart":
    case "reload":
      // An app that is not running starts, with the file's definition.
      return {
        ...base,
        action: running ? input.mode : "start",
        changed_keys: keys,
        step: { _tag: "Redefine", definition: app, run: running ? input.mode : "restart" }
      }
    case "apply":
      if (keys.length === 0) return { ...base, action: "unchanged", changed_keys: [], step: { _tag: "Nothing" } }
      return {
        ...base,
        action: "update",
        changed_keys: keys,
        step: {
          _tag: "Redefine",
          definition: app,
          run: !running ? "keep" : canReload(app) && canReload(current.definition) ? "reload" : "restart"
        }
      }
  }
}

/**
 * The plan, in the order it is carried out: deletions first (in reverse dependency order, so an
 * app stops before what it depends on, and a port it frees is free for the file's apps), then the
 * file's apps in dependency order. `prune` deletes the apps of the file's namespaces that the file
 * does not name.
 */
export const planApply = (input: PlanInput): ReadonlyArray<PlannedApp> => {
  const named = new Set(input.apps.map((app) => app.name))
  const namespaces = new Set(input.apps.map((app) => app.namespace))
  const pruned = input.prune
    ? [...input.current.values()]
        .map((app) => app.definition)
        .filter((app) => namespaces.has(app.namespace) && !named.has(app.name))
    : []
  const deletions = [...dependencyOrder(pruned)].reverse().map(
    (app): PlannedApp => ({
      name: app.name,
      namespace: app.namespace,
      action: "delete",
      changed_keys: [],
      step: { _tag: "Delete", name: app.name }
    })
  )
  return [...deletions, ...dependencyOrder(input.apps).map((app) => planOne(input, app))]
}
