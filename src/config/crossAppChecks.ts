/** Checks across the apps of one file (docs/configuration.md): unique valid names, and `depends_on` naming apps of the file without cycles. */
import { nameProblem } from "../domain/appName"
import type { ConfigProblem } from "../domain/errors"
import { closestKey } from "./closestKey"

export interface Identity {
  readonly index: number
  readonly name: string
  readonly depends_on: ReadonlyArray<string>
}

export const checkNames = (apps: ReadonlyArray<Identity>): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const seen = new Map<string, number>()
  for (const app of apps) {
    const field = `apps[${app.index}].name`
    const problem = nameProblem(app.name)
    if (problem !== undefined) problems.push({ field, value: app.name, ...problem })
    const first = seen.get(app.name)
    if (first !== undefined) {
      problems.push({
        field,
        value: app.name,
        message: `"${app.name}" is already the name of apps[${first}]`,
        suggestion: "give every app its own name"
      })
    } else seen.set(app.name, app.index)
  }
  return problems
}

export const checkDependencies = (apps: ReadonlyArray<Identity>): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const byName = new Map(apps.map((app) => [app.name, app]))
  for (const app of apps) {
    for (const [i, dependency] of app.depends_on.entries()) {
      if (!byName.has(dependency)) {
        const closest = closestKey(dependency, byName.keys())
        problems.push({
          field: `apps[${app.index}].depends_on[${i}]`,
          value: dependency,
          message: `no app named "${dependency}" in this file`,
          suggestion: closest === undefined ? "name an app defined in the same file" : `did you mean "${closest}"?`
        })
      } else if (dependency === app.name) {
        problems.push({
          field: `apps[${app.index}].depends_on[${i}]`,
          value: dependency,
          message: "an app cannot depend on itself",
          suggestion: "remove it"
        })
      }
    }
  }
  // Depth-first search for cycles; each cycle is reported once, at the app where it closes.
  const state = new Map<string, "visiting" | "done">()
  const visit = (name: string, trail: Array<string>): void => {
    const app = byName.get(name)
    if (app === undefined || state.get(name) === "done") return
    if (state.get(name) === "visiting") {
      const cycle = [...trail.slice(trail.indexOf(name)), name]
      const closing = byName.get(trail[trail.length - 1]!)!
      problems.push({
        field: `apps[${closing.index}].depends_on`,
        value: closing.depends_on,
        message: `depends_on forms a cycle: ${cycle.join(" → ")}`,
        suggestion: "remove one of the dependencies so the apps can start in order"
      })
      return
    }
    state.set(name, "visiting")
    for (const dependency of app.depends_on) if (dependency !== name) visit(dependency, [...trail, name])
    state.set(name, "done")
  }
  for (const app of apps) visit(app.name, [])
  return problems
}
