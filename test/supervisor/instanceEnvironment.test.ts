import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { pm2AppDefaults } from "../../src/domain/AppDefinition"
import { filterInherited, instanceEnvironment } from "../../src/supervisor/instanceEnvironment"

const base = { PATH: "/usr/bin", HOME: "/root", AWS_SECRET: "s", npm_config_x: "1" }
const app = (settings: object = {}) => ({
  env: {},
  filter_env: pm2AppDefaults.filter_env,
  increment_var: null,
  instance_var: "NODE_APP_INSTANCE",
  ...settings
})

describe("an instance's environment", () => {
  it("a Python app gets PYTHONUNBUFFERED=1 (its print() lines reach the log at once) unless something sets it", () => {
    const envOf = (settings: object, baseEnv: Record<string, string> = {}) =>
      Either.getOrThrow(instanceEnvironment({ app: app(settings), instance: 0, port: null, baseEnv }))
    expect(envOf({ script: "/srv/job.py", interpreter: null, shell: null }).PYTHONUNBUFFERED).toBe("1")
    expect(envOf({ script: "/srv/job.txt", interpreter: "python3.12", shell: null }).PYTHONUNBUFFERED).toBe("1")
    expect(envOf({ script: "python3", interpreter: null, shell: null }).PYTHONUNBUFFERED).toBe("1")
    // Set by the app or the caller: theirs stays.
    expect(envOf({ script: "job.py", interpreter: null, env: { PYTHONUNBUFFERED: "" } }).PYTHONUNBUFFERED).toBe("")
    expect(envOf({ script: "job.py", interpreter: null }, { PYTHONUNBUFFERED: "0" }).PYTHONUNBUFFERED).toBe("0")
    // Not Python: nothing added.
    expect(envOf({ script: "server.js", interpreter: null, shell: null }).PYTHONUNBUFFERED).toBeUndefined()
    expect(envOf({ script: "job.py", interpreter: "bash", shell: null }).PYTHONUNBUFFERED).toBeUndefined()
    expect(
      envOf({ script: "python3 job.py | tee x", interpreter: null, shell: "bash" }).PYTHONUNBUFFERED
    ).toBeUndefined()
  })

  it("instance_var names the variable of the instance index; PMFX_INSTANCE_ID stays", () => {
    const env = Either.getOrThrow(
      instanceEnvironment({ app: app({ instance_var: "INSTANCE_ID" }), instance: 2, port: null, baseEnv: base })
    )
    expect(env).toMatchObject({ INSTANCE_ID: "2", PMFX_INSTANCE_ID: "2", PATH: "/usr/bin" })
    expect(env.NODE_APP_INSTANCE).toBeUndefined()
  })

  it("increment_var counts up from its value (0 when unset), one per instance; port still wins for PORT", () => {
    const at = (instance: number, settings: object, port: number | null = null) =>
      Either.getOrThrow(instanceEnvironment({ app: app(settings), instance, port, baseEnv: {} }))
    expect(at(0, { increment_var: "PORT", env: { PORT: "3000" } }).PORT).toBe("3000")
    expect(at(3, { increment_var: "PORT", env: { PORT: "3000" } }).PORT).toBe("3003")
    expect(at(2, { increment_var: "WORKER" }).WORKER).toBe("2")
    expect(at(1, { increment_var: "PORT", env: { PORT: "3000" } }, 4100).PORT).toBe("4100")
    expect(
      instanceEnvironment({
        app: app({ increment_var: "PORT", env: { PORT: "web" } }),
        instance: 0,
        port: null,
        baseEnv: {}
      })
    ).toEqual(Either.left('increment_var PORT is "web", not a whole number to count up from'))
  })

  it("filter_env: true drops the starting environment, names drop variables containing them; env is kept", () => {
    expect(filterInherited(base, true)).toEqual({})
    expect(filterInherited(base, false)).toEqual(base)
    expect(filterInherited(base, ["AWS_", "npm_"])).toEqual({ PATH: "/usr/bin", HOME: "/root" })
    const env = Either.getOrThrow(
      instanceEnvironment({
        app: app({ filter_env: true, env: { KEEP: "1" } }),
        instance: 0,
        port: null,
        baseEnv: base
      })
    )
    expect(env).toEqual({ KEEP: "1", PMFX_INSTANCE_ID: "0", NODE_APP_INSTANCE: "0" })
  })
})
