/**
 * The body of `POST /api/apply`, decoded and checked before anything changes (docs/api.md,
 * "POST /api/apply"): a body of the wrong shape is BAD_REQUEST naming the first wrong field; apps
 * that cannot be applied together are one INVALID_CONFIG listing every problem — and then no app
 * of the file is touched.
 */
import { Effect, ParseResult } from "effect"
import type { AppDefinition } from "../../domain/AppDefinition"
import { nameProblem } from "../../domain/appName"
import { type BadRequest, type ConfigProblem, InvalidConfig } from "../../domain/errors"
import { dependencyProblem } from "../../supervisor/dependencyConditions"
import { ApplyRequest } from "../../shared/ApiSchemas"
import { badRequest, checkDepth } from "../requestValues"
import { decodeStrictly } from "../strictDecode"

/** `apps.0.depends_on.1` as the docs write it: `apps[0].depends_on[1]`. */
const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`),
    ""
  )

export const decodeApplyRequest = (payload: unknown): Effect.Effect<ApplyRequest, BadRequest> =>
  Effect.gen(function* () {
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
      return yield* badRequest(
        "body",
        "the body must be a JSON object",
        'send {"apps": [...resolved definitions], "mode": "start" | "restart" | "reload" | "apply"}'
      )
    }
    yield* checkDepth(payload)
    const request = yield* decodeStrictly(ApplyRequest)(payload).pipe(
      Effect.mapError((error) => {
        const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
        const field = first === undefined || first.path.length === 0 ? "body" : fieldOf(first.path)
        return badRequest(
          field,
          first?.message ?? "the body does not match the request shape",
          field === "mode"
            ? 'give mode as "start", "restart", "reload" or "apply"'
            : field.startsWith("apps")
              ? "send the apps as resolved definitions (the CLI resolves an ecosystem file with `pmfx apply <file>`)"
              : "see docs/api.md, POST /api/apply, for the body's fields"
        )
      })
    )
    if (request.prune === true && request.mode !== "apply") {
      return yield* badRequest(
        "prune",
        `only mode "apply" deletes apps; this request's mode is "${request.mode}"`,
        'send mode "apply" with prune, or leave prune out'
      )
    }
    if (request.update_env === true && request.env === undefined) {
      return yield* badRequest(
        "env",
        "update_env needs the environment to give the apps",
        "send env (the caller's environment) with update_env"
      )
    }
    return request
  })

/**
 * Everything about the file's apps that would make applying them half-done: an empty list, a name
 * that is not usable or appears twice, a `depends_on` naming an app neither in the file nor in the
 * table. `known` is the table's app names.
 */
export const checkApplyApps = (
  apps: ReadonlyArray<AppDefinition>,
  known: ReadonlySet<string>
): Effect.Effect<void, InvalidConfig> => {
  const problems: Array<ConfigProblem> = []
  if (apps.length === 0)
    problems.push({ field: "apps", value: [], message: "has no app", suggestion: "send at least one app" })
  const names = new Set<string>()
  for (const [i, app] of apps.entries()) {
    const problem = nameProblem(app.name)
    if (problem !== undefined) problems.push({ field: `apps[${i}].name`, value: app.name, ...problem })
    else if (names.has(app.name))
      problems.push({
        field: `apps[${i}].name`,
        value: app.name,
        message: `"${app.name}" names two apps of the file`,
        suggestion: "give every app its own name"
      })
    names.add(app.name)
  }
  for (const [i, app] of apps.entries()) {
    for (const [j, dependency] of app.depends_on.entries()) {
      if (!names.has(dependency.name) && !known.has(dependency.name)) {
        problems.push({
          field: `apps[${i}].depends_on[${j}]`,
          value: dependency.name,
          message: `no app named "${dependency.name}"`,
          suggestion: "add it to the file, or start it before this one"
        })
        continue
      }
      // A condition an app of the same request can never meet (healthy without a health check…).
      const sibling = apps.find((other) => other.name === dependency.name)
      const unreachable = sibling === undefined ? undefined : dependencyProblem(dependency, sibling)
      if (unreachable !== undefined)
        problems.push({ field: `apps[${i}].depends_on[${j}].condition`, value: dependency.condition, ...unreachable })
    }
  }
  return problems.length === 0 ? Effect.void : Effect.fail(InvalidConfig.fromProblems(problems))
}
