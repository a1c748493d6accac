/**
 * The order apps start and stop in (docs/architecture.md §4, depends_on): every app starts after
 * the apps it `depends_on`, and stops before them.
 */
import type { AppDefinition } from "../domain/AppDefinition"

/** Apps in an order where every app comes after the apps it `depends_on` (cycles were refused by validation). */
export const dependencyOrder = (apps: ReadonlyArray<AppDefinition>): ReadonlyArray<AppDefinition> => {
  const byName = new Map(apps.map((app) => [app.name, app]))
  const ordered: Array<AppDefinition> = []
  const seen = new Set<string>()
  const visit = (app: AppDefinition, trail: ReadonlySet<string>) => {
    if (seen.has(app.name) || trail.has(app.name)) return
    const next = new Set(trail).add(app.name)
    for (const dependency of app.depends_on) {
      const found = byName.get(dependency.name)
      if (found !== undefined) visit(found, next)
    }
    seen.add(app.name)
    ordered.push(app)
  }
  for (const app of apps) visit(app, new Set())
  return ordered
}

/**
 * The names of `selected` grouped for stopping: dependents first, each group after the one before
 * it has stopped. An app's depth is 0 without dependencies, else one more than its deepest
 * dependency's, measured over every app of the table (`known`), so an app stops after its
 * dependents even when an app between them is not being stopped. Apps of one depth stop together.
 */
export const stopLevels = (
  selected: ReadonlyArray<string>,
  known: ReadonlyArray<AppDefinition>
): ReadonlyArray<ReadonlyArray<string>> => {
  const byName = new Map(known.map((app) => [app.name, app]))
  const depths = new Map<string, number>()
  const depthOf = (name: string, trail: ReadonlySet<string>): number => {
    const cached = depths.get(name)
    if (cached !== undefined) return cached
    const app = byName.get(name)
    // A cycle cannot be loaded; the guard only keeps a hand-built table from looping.
    if (app === undefined || trail.has(name)) return 0
    const next = new Set(trail).add(name)
    const depth = app.depends_on.reduce(
      (deepest, dependency) => Math.max(deepest, depthOf(dependency.name, next) + 1),
      0
    )
    depths.set(name, depth)
    return depth
  }
  const levels = new Map<number, Array<string>>()
  for (const name of selected) {
    const depth = depthOf(name, new Set())
    levels.set(depth, [...(levels.get(depth) ?? []), name])
  }
  return [...levels.entries()].sort(([a], [b]) => b - a).map(([, names]) => names)
}
