import { describe, expect, it } from "vitest"
import type { AppDefinition } from "../../src/domain/AppDefinition"
import { applyLevels } from "../../src/supervisor/applyApps"
import type { PlannedApp } from "../../src/supervisor/applyPlan"

const app = (name: string, dependsOn: ReadonlyArray<string> = []) =>
  ({ name, depends_on: dependsOn.map((dep) => ({ name: dep })) }) as unknown as AppDefinition
const create = (name: string) =>
  ({
    name,
    namespace: "default",
    action: "create",
    changed_keys: [],
    step: { _tag: "Create", definition: app(name) }
  }) as unknown as PlannedApp
const remove = (name: string) =>
  ({
    name,
    namespace: "default",
    action: "delete",
    changed_keys: [],
    step: { _tag: "Delete", name }
  }) as unknown as PlannedApp

describe("applyLevels", () => {
  it("puts independent apps in one group", () => {
    const plan = ["a", "b", "c"].map(create)
    expect(
      applyLevels(
        plan,
        ["a", "b", "c"].map((name) => app(name))
      )
    ).toEqual([[0, 1, 2]])
  })

  it("runs deletions first, one at a time, then apps one group after their deepest dependency", () => {
    // The plan's order: deletions (dependents first), then the file's apps in dependency order.
    const apps = [app("db"), app("cache"), app("api", ["db", "cache"]), app("web", ["api"]), app("worker", ["db"])]
    const plan = [remove("old-web"), remove("old-db"), ...apps.map((a) => create(a.name))]
    expect(applyLevels(plan, apps)).toEqual([[0], [1], [2, 3], [4, 6], [5]])
  })

  it("ignores a dependency that is not in the plan (already running, or another file's)", () => {
    const apps = [app("api", ["elsewhere"]), app("web")]
    expect(
      applyLevels(
        apps.map((a) => create(a.name)),
        apps
      )
    ).toEqual([[0, 1]])
  })

  it("has no group for an empty plan", () => {
    expect(applyLevels([], [])).toEqual([])
  })
})
