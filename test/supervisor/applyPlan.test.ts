/** The plan of `POST /api/apply` (src/supervisor/applyPlan.ts): pure, from definitions and the table. */
import { describe, expect, it } from "@effect/vitest"
import { type AppDefinition, appDefaults, pm2AppDefaults } from "../../src/domain/AppDefinition"
import { type ApplyMode, type CurrentApp, changedKeys, planApply } from "../../src/supervisor/applyPlan"

const app = (name: string, extra: Partial<AppDefinition> = {}): AppDefinition => ({
  ...appDefaults,
  ...pm2AppDefaults,
  name,
  script: "/srv/app.js",
  args: [],
  interpreter: null,
  config_file: null,
  shell: null,
  cwd: "/srv",
  port: null,
  env: {},
  env_file: null,
  max_memory_restart: null,
  user: null,
  group: null,
  umask: null,
  watch_paths: [],
  ignore_watch: [],
  watch_options: {},
  depends_on: [],
  ready_log_line: null,
  out_file: null,
  error_file: null,
  log_file: null,
  pid_file: null,
  max_log_size: null,
  rotation_schedule: null,
  health_check: null,
  alerts: null,
  ...extra
})

const table = (...apps: ReadonlyArray<readonly [AppDefinition, number]>): ReadonlyMap<string, CurrentApp> =>
  new Map(apps.map(([definition, running]) => [definition.name, { definition, baseEnv: { HOME: "/root" }, running }]))

const plan = (
  mode: ApplyMode,
  apps: ReadonlyArray<AppDefinition>,
  current: ReadonlyMap<string, CurrentApp>,
  extra: { prune?: boolean; callerEnv?: Record<string, string> } = {}
) =>
  planApply({ mode, apps, current, prune: extra.prune ?? false, callerEnv: extra.callerEnv }).map((p) => [
    p.name,
    p.action,
    p.changed_keys,
    p.step._tag === "Redefine" ? p.step.run : p.step._tag
  ])

describe("changedKeys", () => {
  it("names the top-level settings that differ, deeply and regardless of key order", () => {
    expect(changedKeys(app("a", { env: { A: "1", B: "2" } }), app("a", { env: { B: "2", A: "1" } }))).toEqual([])
    expect(
      changedKeys(
        app("a"),
        app("a", {
          instances: 2,
          env: { A: "1" },
          health_check: {
            enabled: true,
            check_type: "http",
            url: "http://x",
            script: null,
            timeout: 1,
            interval: 1,
            retries: 1
          }
        })
      )
    ).toEqual(["instances", "env", "health_check"])
  })
})

describe("planApply", () => {
  const running = table([app("web"), 1], [app("worker", { instances: 2 }), 2], [app("stopped"), 0])

  it("start: new apps are created, running ones unchanged or changed (left alone), stopped ones start with the file's definition", () => {
    expect(
      plan(
        "start",
        [app("web"), app("worker", { instances: 2, env: { X: "1" } }), app("stopped", { args: ["-v"] }), app("new")],
        running
      )
    ).toEqual([
      ["web", "unchanged", [], "Nothing"],
      ["worker", "changed", ["env"], "Nothing"],
      ["stopped", "start", ["args"], "restart"],
      ["new", "create", [], "Create"]
    ])
    expect(plan("start", [app("stopped")], running)).toEqual([["stopped", "start", [], "Start"]])
  })

  it("restart and reload run every app of the file again; an app not running starts", () => {
    expect(plan("restart", [app("web"), app("stopped")], running)).toEqual([
      ["web", "restart", [], "restart"],
      ["stopped", "start", [], "restart"]
    ])
    expect(plan("reload", [app("worker", { instances: 3 })], running)).toEqual([
      ["worker", "reload", ["instances"], "reload"]
    ])
  })

  it("apply: only changed apps act — reloaded when they can be, restarted when not, stored when stopped; prune deletes the rest of the namespace", () => {
    const current = table(
      [app("web"), 1],
      [app("worker", { instances: 2 }), 2],
      [app("stopped"), 0],
      [app("old"), 1],
      [app("other", { namespace: "x" }), 1]
    )
    expect(
      plan(
        "apply",
        [
          app("web", { env: { A: "1" } }),
          app("worker", { instances: 2, args: ["-v"] }),
          app("stopped", { args: ["-v"] })
        ],
        current,
        { prune: true }
      )
    ).toEqual([
      ["old", "delete", [], "Delete"],
      ["web", "update", ["env"], "restart"],
      ["worker", "update", ["args"], "reload"],
      ["stopped", "update", ["args"], "keep"]
    ])
  })

  it("deletes in reverse dependency order and acts on the file in dependency order", () => {
    const current = table(
      [app("db"), 1],
      [app("api", { depends_on: [{ name: "db", condition: "online" }] }), 1],
      [app("keep"), 1]
    )
    expect(plan("apply", [app("keep")], current, { prune: true }).map(([name, action]) => `${action} ${name}`)).toEqual(
      ["delete api", "delete db", "unchanged keep"]
    )
    expect(
      plan(
        "start",
        [app("front", { depends_on: [{ name: "back", condition: "online" }] }), app("back")],
        new Map()
      ).map(([name]) => name)
    ).toEqual(["back", "front"])
  })

  it("update_env: a different caller environment is a change (caller_env); the same one is not", () => {
    expect(plan("apply", [app("web")], running, { callerEnv: { HOME: "/root" } })).toEqual([
      ["web", "unchanged", [], "Nothing"]
    ])
    expect(plan("apply", [app("web")], running, { callerEnv: { HOME: "/home/x" } })).toEqual([
      ["web", "update", ["caller_env"], "restart"]
    ])
  })
})
