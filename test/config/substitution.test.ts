/**
 * `${NAME}` and `${NAME:-default}` in string values, before validation (docs/configuration.md §3, docs/architecture.md §6): so strings may stand for numbers and booleans; `$$` writes a literal `$`; an unset variable
 * without a default is INVALID_CONFIG naming it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { substituteEnv } from "../../src/config/substituteEnv"
import { ecosystem, loadFiles, loadFilesError } from "./helpers"

const loadApp = (app: object, environment: Record<string, string | undefined>) =>
  Effect.map(loadFiles({ "pmfx.json": ecosystem(app) }, "pmfx.json", { environment }), (loaded) => loaded.apps[0]!)

describe("substitution in a loaded file", () => {
  it.effect("${NAME} takes the variable; ${NAME:-default} the default when it is unset", () =>
    Effect.gen(function* () {
      const app = yield* loadApp(
        {
          name: "${APP_NAME}",
          script: "server.js",
          args: ["--db", "${DB_HOST:-localhost}:${DB_PORT:-5432}"],
          env: { URL: "http://${HOST}:${PORT:-80}/x", REGION: "${REGION:-eu-west-1}" }
        },
        { APP_NAME: "api", HOST: "example.org", DB_PORT: "6543" }
      )
      expect(app.name).toBe("api")
      expect(app.args).toEqual(["--db", "localhost:6543"])
      expect(app.env).toEqual({ URL: "http://example.org:80/x", REGION: "eu-west-1" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('instances: "${WORKERS:-2}" is the number 2, or the variable when set', () =>
    Effect.gen(function* () {
      const app = { name: "api", script: "a.js", instances: "${WORKERS:-2}" }
      expect((yield* loadApp(app, {})).instances).toBe(2)
      expect((yield* loadApp(app, { WORKERS: "5" })).instances).toBe(5)
      expect((yield* loadApp(app, { WORKERS: "max" })).instances).toBe(4)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('autorestart: "${AR:-false}" is the boolean false; durations, sizes and ports substitute too', () =>
    Effect.gen(function* () {
      const app = yield* loadApp(
        {
          name: "api",
          script: "a.js",
          autorestart: "${AR:-false}",
          watch: "${WATCH:-true}",
          min_uptime: "${UPTIME:-10s}",
          max_memory_restart: "${MEM:-1G}",
          port: "${PORT:-3000}",
          max_restarts: "${RESTARTS}"
        },
        { RESTARTS: "7", PORT: "8080" }
      )
      expect(app.autorestart).toBe(false)
      expect(app.watch).toBe(true)
      expect(app.min_uptime).toBe(10_000)
      expect(app.max_memory_restart).toBe(1024 ** 3)
      expect(app.port).toBe("8080")
      expect(app.max_restarts).toBe(7)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("$$ writes a literal $, so $${NAME} is not substituted", () =>
    Effect.gen(function* () {
      const app = yield* loadApp(
        { name: "api", script: "a.js", env: { PRICE: "$$5", TEMPLATE: "$${HOME}", BOTH: "$$${USER}", LONE: "a $ b" } },
        { HOME: "/root", USER: "deploy" }
      )
      expect(app.env).toEqual({ PRICE: "$5", TEMPLATE: "${HOME}", BOTH: "$deploy", LONE: "a $ b" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an empty variable uses the default (as Docker Compose's :-); without one it stays empty", () =>
    Effect.gen(function* () {
      const app = yield* loadApp(
        {
          name: "api",
          script: "a.js",
          instances: "${WORKERS:-3}",
          env: { A: "${EMPTY:-fallback}", B: "[${EMPTY}]", C: "${UNSET:-}" }
        },
        { WORKERS: "", EMPTY: "" }
      )
      expect(app.instances).toBe(3)
      expect(app.env).toEqual({ A: "fallback", B: "[]", C: "" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("env_<name> blocks and nested settings are substituted", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.json": ecosystem({
            name: "api",
            script: "a.js",
            env_production: { DB: "${PROD_DB}" },
            health_check: { url: "http://127.0.0.1:${PORT:-3000}/health", interval: "${CHECK_EVERY:-15}" }
          })
        },
        "pmfx.json",
        { environment: { PROD_DB: "postgres://prod" }, envName: "production" }
      )
      expect(loaded.apps[0]!.env).toEqual({ DB: "postgres://prod" })
      expect(loaded.apps[0]!.health_check).toMatchObject({ url: "http://127.0.0.1:3000/health", interval: 15_000 })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("only the given environment is used, not the process's", () =>
    Effect.gen(function* () {
      const app = yield* loadApp({ name: "api", script: "a.js", env: { WHERE: "${PATH:-none}" } }, {})
      expect(app.env).toEqual({ WHERE: "none" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("unset variables", () => {
  it.effect("an unset variable without a default is INVALID_CONFIG naming the variable", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", env: { DB: "postgres://${DB_HOST}/app" } }) },
        "pmfx.json"
      )
      const problem = {
        field: "apps[0].env.DB",
        value: "postgres://${DB_HOST}/app",
        message: "environment variable DB_HOST is not set and ${DB_HOST} has no default",
        suggestion: "set DB_HOST, or give a default: ${DB_HOST:-value}"
      }
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toEqual({
        field: problem.field,
        value: problem.value,
        suggestion: problem.suggestion,
        file: path.join(dir, "pmfx.json"),
        problems: [problem]
      })
      expect(error.message).toBe(`apps[0].env.DB: ${problem.message}`)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("each unset variable is reported, with its own path", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.yaml": "apps:\n  - name: api\n    script: ${SCRIPT}\n    args: [--token, '${TOKEN}']\n" },
        "pmfx.yaml"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      if (error._tag !== "INVALID_CONFIG") return
      expect(error.details.problems?.map((p) => [p.field, p.message])).toEqual([
        ["apps[0].script", "environment variable SCRIPT is not set and ${SCRIPT} has no default"],
        ["apps[0].args[1]", "environment variable TOKEN is not set and ${TOKEN} has no default"]
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unset variable in a number setting is reported by name (and the value it left behind)", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", instances: "${WORKERS}" }) },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      if (error._tag !== "INVALID_CONFIG") return
      expect(error.details.field).toBe("apps[0].instances")
      expect(error.details.value).toBe("${WORKERS}")
      expect(error.message).toContain("WORKERS")
      expect(error.details.problems?.[0]?.message).toBe(
        "environment variable WORKERS is not set and ${WORKERS} has no default"
      )
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("substituteEnv", () => {
  it("leaves keys, numbers, booleans and null alone", () => {
    const result = substituteEnv({ "${KEY}": 1, b: true, c: null, d: [2, "${X:-y}"] }, {})
    expect(result).toEqual({ value: { "${KEY}": 1, b: true, c: null, d: [2, "y"] }, problems: [] })
  })

  it("a default may hold characters other than }", () => {
    expect(substituteEnv("${URL:-http://h:1/p?q=a&b=$}", {}).value).toBe("http://h:1/p?q=a&b=$")
    expect(substituteEnv("${A:-x}${B:-y}", { B: "b" }).value).toBe("xb")
  })

  it("names that are not variable names are left as written", () => {
    expect(substituteEnv("${1X} ${A-B} $NAME ${}", { NAME: "n" })).toEqual({
      value: "${1X} ${A-B} $NAME ${}",
      problems: []
    })
  })
})

describe("substitution skips what will not be used", () => {
  it.effect("an unset variable in PM2's deploy section or an unselected env_<name> block is not an error", () =>
    Effect.gen(function* () {
      const doc = {
        apps: [
          {
            name: "a",
            script: "node",
            env_staging: { URL: "${STAGING_URL}" },
            env_production: { URL: "${PROD_URL:-https://prod}" }
          }
        ],
        deploy: { production: { host: "${DEPLOY_HOST}" } }
      }
      const loaded = yield* loadFiles({ "pmfx.json": doc }, "pmfx.json", { environment: {}, envName: "production" })
      expect(loaded.apps[0]!.env).toEqual({ URL: "https://prod" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("the selected env_<name> block is still substituted and checked", () =>
    Effect.gen(function* () {
      const doc = { apps: [{ name: "a", script: "node", env_staging: { URL: "${STAGING_URL}" } }] }
      const { error } = yield* loadFilesError({ "pmfx.json": doc }, "pmfx.json", {
        environment: {},
        envName: "staging"
      })
      expect(error._tag).toBe("INVALID_CONFIG")
      if (error._tag === "INVALID_CONFIG") expect(error.details.field).toBe("apps[0].env_staging.URL")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
