/**
 * CONFIG_PARSE_ERROR (docs/architecture.md §6, docs/api.md): a file that cannot be read or parsed names the file and the
 * line (and the column when the parser knows it).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { loadError, loadFilesError, withTempDir } from "./helpers"

const lines = (...text: ReadonlyArray<string>) => text.join("\n") + "\n"

describe("malformed JSON", () => {
  it.effect("a value that is not JSON5 either (a bare word) is reported at its line and column", () =>
    Effect.gen(function* () {
      const text = lines(
        "{", //                                        1
        '  "apps": [', //                              2
        '    { "name": "api", "script": "a.js" },', // 3
        '    { "name": "api", "script": a.js }', //   4 ← a.js is neither a string nor a number
        "  ]",
        "}"
      )
      const { error, dir } = yield* loadFilesError({ "pmfx.json": text }, "pmfx.json")
      const file = path.join(dir, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({ file, line: 4, column: 32, suggestion: "fix the JSON syntax at line 4" })
      expect(error.message).toBe(`${file}:4:32: invalid JSON: invalid character 'a'`)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unclosed /* comment is reported where the file ends", () =>
    Effect.gen(function* () {
      const text = lines("{", '  "apps": [ { "script": "a.js" } ]', "  /* the end")
      const { error, dir } = yield* loadFilesError({ "pmfx.json": text }, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.json"),
        line: 4,
        column: 1,
        suggestion: "fix the JSON syntax at line 4"
      })
      expect(error.message).toMatch(/invalid JSON: invalid end of input$/)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing opening quote (V8's message names no position) is found on the right line", () =>
    Effect.gen(function* () {
      const text = lines(
        "{",
        '  "apps": [',
        '    { "name": "api", "script": "a.js" },',
        '    { "name": worker", "script": "b.js" }', // 4: `worker"` lacks its opening quote
        "  ]",
        "}"
      )
      const { error, dir } = yield* loadFilesError({ "pmfx.json": text }, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.json"),
        line: 4,
        column: 15,
        suggestion: "fix the JSON syntax at line 4"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing closing quote at the end of a line is reported on that line", () =>
    Effect.gen(function* () {
      const text = lines(
        "{",
        '  "apps": [',
        "    {",
        '      "name": "api,', // 4: the string runs into the end of the line
        '      "script": "a.js"',
        "    }",
        "  ]",
        "}"
      )
      const { error, dir } = yield* loadFilesError({ "pmfx.json": text }, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.json"),
        line: 4,
        column: 20,
        suggestion: "fix the JSON syntax at line 4"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a missing comma between two properties is reported where the next one starts", () =>
    Effect.gen(function* () {
      const text = lines("{", '  "apps": [', '    { "name": "api" "script": "a.js" }', "  ]", "}")
      const { error, dir } = yield* loadFilesError({ "pmfx.json": text }, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.json"),
        line: 3,
        column: 21,
        suggestion: "fix the JSON syntax at line 3"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an empty file is a parse error on line 1", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError({ "pmfx.json": "" }, "pmfx.json")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.json"),
        line: 1,
        column: 1,
        suggestion: "fix the JSON syntax at line 1"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("malformed YAML", () => {
  it.effect("a bad indentation is reported on its line, with the column", () =>
    Effect.gen(function* () {
      const text = lines(
        "# pmfx", //            1
        "apps:", //             2
        "  - name: api", //     3
        "    script: a.js", //  4
        "   port: 3000" //      5 ← three spaces: neither the item nor its keys
      )
      const { error, dir } = yield* loadFilesError({ "pmfx.yaml": text }, "pmfx.yaml")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.yaml"),
        line: 5,
        column: 1,
        suggestion: "fix the YAML syntax at line 5"
      })
      expect(error.message).toBe(`${path.join(dir, "pmfx.yaml")}:5:1: invalid YAML: Sequence item without - indicator`)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a duplicate key is reported on the line of the second one", () =>
    Effect.gen(function* () {
      const text = lines("apps:", "  - name: api", "    script: a.js", "    name: other")
      const { error, dir } = yield* loadFilesError({ "pmfx.yml": text }, "pmfx.yml")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.yml"),
        line: 4,
        column: 5,
        suggestion: "fix the YAML syntax at line 4"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unclosed flow sequence is reported where the parser finds it out, not on line 1", () =>
    Effect.gen(function* () {
      const text = lines(
        "apps:",
        "  - name: api",
        "    script: a.js",
        "    args: [--port, 3000",
        "  - name: worker",
        "    script: b.js"
      )
      const { error, dir } = yield* loadFilesError({ "pmfx.yaml": text }, "pmfx.yaml")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.yaml"),
        line: 5,
        column: 3,
        suggestion: "fix the YAML syntax at line 5"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("malformed TOML", () => {
  it.effect("an unquoted string value is reported on its line and column", () =>
    Effect.gen(function* () {
      const text = lines("[[apps]]", 'name = "api"', "script = server.js")
      const { error, dir } = yield* loadFilesError({ "pmfx.toml": text }, "pmfx.toml")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.toml"),
        line: 3,
        column: 10,
        suggestion: "fix the TOML syntax at line 3"
      })
      expect(error.message).toMatch(new RegExp(`^${path.join(dir, "pmfx.toml")}:3:10: invalid TOML: `))
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a key defined twice is reported on the second definition", () =>
    Effect.gen(function* () {
      const text = lines("[[apps]]", 'name = "api"', 'script = "a.js"', 'name = "again"')
      const { error, dir } = yield* loadFilesError({ "pmfx.toml": text }, "pmfx.toml")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.toml"),
        line: 4,
        column: 1,
        suggestion: "fix the TOML syntax at line 4"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("JavaScript files", () => {
  it.effect("a .js file that throws: the line of the throw", () =>
    Effect.gen(function* () {
      const text = lines(
        "// ecosystem", //                                        1
        "const port = process.env.PORT", //                       2
        "if (port === undefined || port !== undefined) {", //     3
        '  throw new Error("DATABASE_URL is required")', //       4
        "}", //                                                   5
        "module.exports = { apps: [] }" //                        6
      )
      const { error, dir } = yield* loadFilesError({ "ecosystem.config.js": text }, "ecosystem.config.js")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "ecosystem.config.js"),
        line: 4,
        column: 9,
        suggestion: "fix the error the file throws, then validate again"
      })
      expect(error.message).toContain("the file threw while loading: Error: DATABASE_URL is required")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a .js file with a syntax error: the line of the error", () =>
    Effect.gen(function* () {
      const text = lines(
        "module.exports = {", //                     1
        "  apps: [", //                              2
        '    { name: "api" script: "a.js" },', //    3 ← missing comma
        "  ],", //                                   4
        "}" //                                       5
      )
      const { error, dir } = yield* loadFilesError({ "ecosystem.config.js": text }, "ecosystem.config.js")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "ecosystem.config.js"),
        line: 3,
        suggestion: "fix the error the file throws, then validate again"
      })
      expect(error.message).toContain("SyntaxError")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a .cjs file requiring a missing module: the line of the require", () =>
    Effect.gen(function* () {
      const text = lines("const base = 1", "", "module.exports = require('./missing-base.cjs')")
      const { error, dir } = yield* loadFilesError({ "pmfx.config.cjs": text }, "pmfx.config.cjs")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.config.cjs"),
        line: 3,
        column: 18,
        suggestion: "fix the error the file throws, then validate again"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an .mjs file that throws: the line of the throw", () =>
    Effect.gen(function* () {
      const text = lines("const apps = []", "", 'throw new TypeError("no apps yet")', "export default { apps }")
      const { error, dir } = yield* loadFilesError({ "pmfx.config.mjs": text }, "pmfx.config.mjs")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.config.mjs"),
        line: 3,
        column: 7,
        suggestion: "fix the error the file throws, then validate again"
      })
      expect(error.message).toContain("TypeError: no apps yet")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("files that cannot be read", () => {
  it.effect("a file that does not exist: CONFIG_PARSE_ERROR on line 0", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const file = path.join(dir, "nope.json")
        const error = yield* loadError(file)
        expect(error._tag).toBe("CONFIG_PARSE_ERROR")
        expect(error.details).toEqual({
          file,
          line: 0,
          suggestion: "check the path; relative paths start from the current folder"
        })
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a folder is not a configuration file", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const folder = path.join(dir, "conf.json")
        yield* Effect.promise(() => import("node:fs").then((fs) => fs.mkdirSync(folder)))
        const error = yield* loadError(folder)
        expect(error._tag).toBe("CONFIG_PARSE_ERROR")
        expect(error.details).toEqual({
          file: folder,
          line: 0,
          suggestion: "check the path; relative paths start from the current folder"
        })
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unsupported extension: CONFIG_PARSE_ERROR naming the supported ones", () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError({ "pmfx.ini": "[apps]\n" }, "pmfx.ini")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toEqual({
        file: path.join(dir, "pmfx.ini"),
        line: 0,
        suggestion: "use one of .json, .yaml, .yml, .toml, .js, .cjs, .mjs"
      })
      expect(error.message).toContain('unsupported file type ".ini"')
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a file without an extension is unsupported too", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError({ Procfile: "web: node a.js\n" }, "Procfile")
      expect(error._tag).toBe("CONFIG_PARSE_ERROR")
      expect(error.details).toMatchObject({ line: 0 })
      expect(error.message).toContain('unsupported file type "(none)"')
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
