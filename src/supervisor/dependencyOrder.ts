/** Apps in an order where every app comes after the apps it `depends_on` (cycles were refused by validation). */
import type { AppDefinition } from "../domain/AppDefinition"

export const dependencyOrder = (apps: ReadonlyArray<AppDefinition>): ReadonlyArray<AppDefinition> => {
  const byName = new Map(apps.map((app) => [app.name, app]))
  const ordered: Array<AppDefinition> = []
  const seen = new Set<string>()
  const visit = (app: AppDefinition, trail: ReadonlySet<string>) => {
    if (seen.has(app.name) || trail.has(app.name)) return
    const next = new Set(trail).add(app.name)
    for (const dependency of app.depends_on) {
      const found = byName.get(dependency)
      if (found !== undefined) visit(found, next)
    }
    seen.add(app.name)
    ordered.push(app)
  }
  for (const app of apps) visit(app, new Set())
  return ordered
}
