// The checks and limits a create request's definitions meet before the table makes any row.

import { Effect } from "effect"
import * as path from "node:path"
import { type AppDefinition, MAX_INSTANCES } from "../../domain/AppDefinition"
import { nameProblem } from "../../domain/appName"
import { type BadRequest, InvalidConfig } from "../../domain/errors"
import { badRequest } from "../requestValues"

/**
 * Problems listed in one INVALID_CONFIG answer. Validation reports every problem, which for a
 * 1 MiB body of junk can be hundreds of thousands (a 70 MB answer); the message still gives the
 * count, and the first ones are what a client can act on.
 */
const MAX_PROBLEMS = 100

/** INVALID_CONFIG with at most `MAX_PROBLEMS` problems listed. */
export const boundProblems = (error: InvalidConfig): InvalidConfig => {
  const problems = error.details.problems
  if (problems === undefined || problems.length <= MAX_PROBLEMS) return error
  return new InvalidConfig({
    message: error.message,
    details: { ...error.details, problems: problems.slice(0, MAX_PROBLEMS) }
  })
}

/**
 * Resolved definitions (the CLI's form) skip the loader's validation, so the names are checked
 * here as the loader checks them (docs/configuration.md, `name`): a numeric name or `all` would
 * make `{id}` ambiguous, and control characters have no place in a table.
 */
export const checkNames = (definitions: ReadonlyArray<AppDefinition>): Effect.Effect<void, InvalidConfig> => {
  const problems = definitions.flatMap((definition, i) => {
    const problem = nameProblem(definition.name)
    return problem === undefined ? [] : [{ field: `definitions[${i}].name`, value: definition.name, ...problem }]
  })
  return problems.length === 0 ? Effect.void : Effect.fail(InvalidConfig.fromProblems(problems))
}

/**
 * How many processes one create request may ask for, over all its apps. Validation refuses more
 * than this per app, but resolved definitions (the CLI's form) skip it, and several apps of one
 * request could still add up: the table makes a row per instance before anything is spawned.
 */
export const MAX_INSTANCES_PER_REQUEST = MAX_INSTANCES

/** INVALID_CONFIG when the definitions ask for more than `MAX_INSTANCES_PER_REQUEST` processes. */
export const checkInstances = (
  definitions: ReadonlyArray<AppDefinition>,
  list: "apps" | "definitions"
): Effect.Effect<void, InvalidConfig> => {
  const suggestion = `ask for at most ${MAX_INSTANCES_PER_REQUEST} instances in one request`
  let total = 0
  for (const [i, definition] of definitions.entries()) {
    if (definition.instances > MAX_INSTANCES_PER_REQUEST) {
      return Effect.fail(
        InvalidConfig.fromProblems([
          {
            field: `${list}[${i}].instances`,
            value: definition.instances,
            message: `is more than ${MAX_INSTANCES_PER_REQUEST} instances`,
            suggestion
          }
        ])
      )
    }
    total += definition.instances
  }
  return total > MAX_INSTANCES_PER_REQUEST
    ? Effect.fail(
        InvalidConfig.fromProblems([
          {
            field: list,
            value: total,
            message: `ask for ${total} instances in all, more than ${MAX_INSTANCES_PER_REQUEST}`,
            suggestion
          }
        ])
      )
    : Effect.void
}

/**
 * The folder relative paths of `{apps:[...], cwd}` resolve against: `cwd` when given (it must be
 * absolute: the daemon's own working folder means nothing to a client), else the daemon's.
 */
export const baseDirOf = (cwd: unknown): Effect.Effect<string, BadRequest> => {
  if (cwd === undefined) return Effect.succeed(process.cwd())
  return typeof cwd === "string" && path.isAbsolute(cwd)
    ? Effect.succeed(cwd)
    : Effect.fail(
        badRequest(
          "cwd",
          `${JSON.stringify(cwd)} is not an absolute path`,
          'give the folder relative paths start from, like "/srv/app"'
        )
      )
}
