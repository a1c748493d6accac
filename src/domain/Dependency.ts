/**
 * One entry of an app's `depends_on` (docs/configuration.md, depends_on): the app it waits for and
 * the condition that app must meet first. A bare name means `online`, today's meaning before
 * conditions existed, so a state file or a request that lists names still decodes.
 */
import { Schema } from "effect"

export const dependencyConditions = ["online", "healthy", "completed_successfully", "log_ready"] as const

export const DependencyCondition = Schema.Literal(...dependencyConditions)
export type DependencyCondition = typeof DependencyCondition.Type

export const Dependency = Schema.Struct({
  name: Schema.String,
  condition: DependencyCondition
})
export type Dependency = typeof Dependency.Type

/** A bare app name: the `online` condition. */
const DependencyFromName = Schema.transform(Schema.String, Schema.typeSchema(Dependency), {
  strict: true,
  decode: (name) => ({ name, condition: "online" as const }),
  encode: (dependency) => dependency.name
})

/** What a resolved definition holds: always `{name, condition}`; a bare name is read as `online`. */
export const DependencyEntry = Schema.Union(Dependency, DependencyFromName)

/** What an app must have for a condition to be reachable at all (checked when a file is loaded). */
export interface DependencyTraits {
  readonly hasHealthCheck: boolean
  readonly readyLogLine: string | null
  /** Whether an exit with code 0 restarts the app (then it never stays completed). */
  readonly restartsAfterCleanExit: boolean
}

/**
 * Why `dependency` can never meet `condition`, with what to do, or undefined when it can: a
 * dependent would otherwise wait for a condition that is never met.
 */
export const unreachableCondition = (
  dependency: string,
  condition: DependencyCondition,
  traits: DependencyTraits
): { readonly message: string; readonly suggestion: string } | undefined => {
  switch (condition) {
    case "healthy":
      return traits.hasHealthCheck
        ? undefined
        : {
            message: `"${dependency}" has no health check, so it can never be healthy`,
            suggestion: `add a health_check to ${dependency}, or wait for condition "online"`
          }
    case "log_ready":
      return traits.readyLogLine !== null
        ? undefined
        : {
            message: `"${dependency}" has no ready_log_line, so no line of its output can say it is ready`,
            suggestion: `set ready_log_line on ${dependency} (a regular expression like "listening on"), or wait for condition "online"`
          }
    case "completed_successfully":
      return traits.restartsAfterCleanExit
        ? {
            message: `"${dependency}" is restarted when it exits, so it never stays completed`,
            suggestion: `set autorestart: false on ${dependency} (a one-shot app such as a migration), or add 0 to its stop_exit_codes`
          }
        : undefined
    case "online":
      return undefined
  }
}

/** How `show` and the waiting status say an entry: `db (healthy)`, `cache` for plain `online`. */
export const describeDependency = (dependency: Dependency): string =>
  dependency.condition === "online" ? dependency.name : `${dependency.name} (${dependency.condition})`

/** What a dependent waits for, in words: `db to be healthy`. */
export const conditionWords: Readonly<Record<DependencyCondition, string>> = {
  online: "to be online",
  healthy: "to be healthy",
  completed_successfully: "to complete successfully (exit 0)",
  log_ready: "to print its ready line"
}
