/**
 * Environment settings of an app: `env_file` (dotenv syntax, checked when the file is loaded) and
 * the `env_<name>` blocks selected with `--env <name>` (docs/architecture.md §4, §6).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { parseEnvFile } from "../../src/config/parseEnvFile"
import { ecosystem, loadFiles, loadFilesError } from "./helpers"

describe("parseEnvFile", () => {
  it("reads comments, blank lines, export, quotes and inline comments", () => {
    const text = [
      "# database",
      "",
      "DB_HOST=localhost",
      "export DB_PORT=5432",
      "  export   SPACED = value with spaces   ",
      "SINGLE='literal $HOME \\n # not a comment'",
      'DOUBLE="line1\\nline2\\t\\"quoted\\" \\\\ end"',
      "INLINE=abc # a comment",
      "HASH=abc#not-a-comment",
      'QUOTED_HASH="a # b" # comment after',
      "EMPTY=",
      'EMPTY_QUOTES=""',
      "URL=postgres://u:p@h:5432/db?ssl=true",
      "   # indented comment",
      "EQUALS=a=b=c"
    ].join("\n")
    expect(parseEnvFile(text)).toEqual(
      Either.right({
        DB_HOST: "localhost",
        DB_PORT: "5432",
        SPACED: "value with spaces",
        SINGLE: "literal $HOME \\n # not a comment",
        DOUBLE: 'line1\nline2\t"quoted" \\ end',
        INLINE: "abc",
        HASH: "abc#not-a-comment",
        QUOTED_HASH: "a # b",
        EMPTY: "",
        EMPTY_QUOTES: "",
        URL: "postgres://u:p@h:5432/db?ssl=true",
        EQUALS: "a=b=c"
      })
    )
  })

  it("a double-quoted value may span lines; CRLF line ends are read", () => {
    expect(parseEnvFile('KEY="-----BEGIN-----\r\nabc\r\n-----END-----"\r\nNEXT=1\r\n')).toEqual(
      Either.right({ KEY: "-----BEGIN-----\nabc\n-----END-----", NEXT: "1" })
    )
  })

  it("a later definition wins", () => {
    expect(parseEnvFile("A=1\nA=2\n")).toEqual(Either.right({ A: "2" }))
  })

  it("a line that is not KEY=value is an error on its line", () => {
    expect(parseEnvFile("A=1\n# ok\nnot a definition\n")).toEqual(
      Either.left({ line: 3, message: 'expected KEY=value, got "not a definition"' })
    )
    expect(parseEnvFile("A=1\n1BAD=x\n")).toEqual(Either.left({ line: 2, message: 'expected KEY=value, got "1BAD=x"' }))
  })

  it("an unterminated quote is an error on the line where it opens", () => {
    expect(parseEnvFile("A=1\nB='open\nC=3\n")).toEqual(
      Either.left({ line: 2, message: "unterminated single quote in B" })
    )
    expect(parseEnvFile('A=1\n\nB="open\nC=3\n')).toEqual(
      Either.left({ line: 3, message: "unterminated double quote in B" })
    )
  })
})

describe("env_file in a configuration", () => {
  it.effect("is resolved to an absolute path against the configuration's folder", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "conf/.env": "# secrets\nexport TOKEN='abc'\nDB=\"postgres://h/db\" # main\n",
          "conf/pmfx.json": ecosystem({ name: "api", script: "a.js", env_file: "./.env" })
        },
        "conf/pmfx.json"
      )
      expect(loaded.apps[0]!.env_file).toBe(path.join(path.dirname(loaded.file!), ".env"))
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing env_file is INVALID_CONFIG at apps[0].env_file", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", env_file: ".env.local" }) },
        "pmfx.json"
      )
      const problem = {
        field: "apps[0].env_file",
        value: ".env.local",
        message: `file ${path.join(dir, ".env.local")} does not exist`,
        suggestion: "create it or fix the path; it is relative to the configuration file"
      }
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toEqual({
        field: problem.field,
        value: problem.value,
        suggestion: problem.suggestion,
        file: path.join(dir, "pmfx.json"),
        problems: [problem]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an env_file with a bad line is INVALID_CONFIG naming the file and line", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        {
          ".env": "A=1\n\nthis is not dotenv\n",
          "pmfx.json": ecosystem({ name: "ok", script: "a.js" }, { name: "api", script: "a.js", env_file: ".env" })
        },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({
        field: "apps[1].env_file",
        value: ".env",
        suggestion: "write one KEY=value per line",
        problems: [
          expect.objectContaining({
            message: `${path.join(dir, ".env")}:3: expected KEY=value, got "this is not dotenv"`
          })
        ]
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("env_file may be substituted", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          ".env.staging": "A=1\n",
          "pmfx.json": ecosystem({ name: "api", script: "a.js", env_file: ".env.${STAGE:-dev}" })
        },
        "pmfx.json",
        { environment: { STAGE: "staging" } }
      )
      expect(path.basename(loaded.apps[0]!.env_file!)).toBe(".env.staging")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("env_<name> blocks", () => {
  const apps = ecosystem(
    {
      name: "api",
      script: "a.js",
      env: { NODE_ENV: "development", PORT: 3000, DEBUG: true },
      env_production: { NODE_ENV: "production", PORT: 80 },
      env_staging: { NODE_ENV: "staging" }
    },
    { name: "worker", script: "w.js", env: { QUEUE: "jobs" } }
  )

  it.effect("without --env, only env applies (values as strings)", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles({ "pmfx.json": apps }, "pmfx.json")
      expect(loaded.apps[0]!.env).toEqual({ NODE_ENV: "development", PORT: "3000", DEBUG: "true" })
      expect(loaded.apps[1]!.env).toEqual({ QUEUE: "jobs" })
      expect(loaded.warnings).toEqual([])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("the selected block merges over env; apps without it keep env", () =>
    Effect.gen(function* () {
      const production = yield* loadFiles({ "pmfx.json": apps }, "pmfx.json", { envName: "production" })
      expect(production.apps[0]!.env).toEqual({ NODE_ENV: "production", PORT: "80", DEBUG: "true" })
      expect(production.apps[1]!.env).toEqual({ QUEUE: "jobs" })
      expect(production.warnings).toEqual([])
      const staging = yield* loadFiles({ "pmfx.json": apps }, "pmfx.json", { envName: "staging" })
      expect(staging.apps[0]!.env).toEqual({ NODE_ENV: "staging", PORT: "3000", DEBUG: "true" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an env name no app has gives a warning and changes nothing", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles({ "pmfx.json": apps }, "pmfx.json", { envName: "prod" })
      expect(loaded.warnings).toEqual(["--env prod: no app has an env_prod block"])
      expect(loaded.apps[0]!.env).toEqual({ NODE_ENV: "development", PORT: "3000", DEBUG: "true" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a block that is not an object of variables is INVALID_CONFIG at its path", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", env_production: ["NODE_ENV=production"] }) },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].env_production", value: ["NODE_ENV=production"] })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a bad variable name in env is INVALID_CONFIG", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": ecosystem({ name: "api", script: "a.js", env: { "BAD-NAME": "x" } }) },
        "pmfx.json"
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].env" })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
