/**
 * `depends_on` with conditions and `ready_log_line` (docs/configuration.md, depends_on): the same
 * entries from every format, and each bad entry refused at its own field with a suggestion.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { ConfigProblem } from "../../src/domain/errors"
import { loadFiles, loadFilesError } from "./helpers"

const expected = [
  ["db", [], "listening on port \\d+"],
  ["migrate", [{ name: "db", condition: "log_ready" }], null],
  [
    "api",
    [
      { name: "migrate", condition: "completed_successfully" },
      { name: "db", condition: "online" }
    ],
    null
  ],
  ["web", [{ name: "api", condition: "healthy" }], null]
]

const json = {
  apps: [
    { name: "db", script: "db.js", ready_log_line: "listening on port \\d+" },
    { name: "migrate", script: "m.js", autorestart: false, depends_on: [{ name: "db", condition: "log_ready" }] },
    {
      name: "api",
      script: "a.js",
      health_check: { url: "http://127.0.0.1:3000/health" },
      depends_on: [{ name: "migrate", condition: "completed_successfully" }, "db"]
    },
    { name: "web", script: "w.js", depends_on: [{ name: "api", condition: "healthy" }] }
  ]
}

const yaml = `apps:
  - name: db
    script: db.js
    ready_log_line: 'listening on port \\d+'
  - name: migrate
    script: m.js
    autorestart: false
    depends_on: [{ name: db, condition: log_ready }]
  - name: api
    script: a.js
    health_check: { url: "http://127.0.0.1:3000/health" }
    depends_on:
      - name: migrate
        condition: completed_successfully
      - db
  - name: web
    script: w.js
    depends_on: [{ name: api, condition: healthy }]
`

const toml = `[[apps]]
name = "db"
script = "db.js"
ready_log_line = 'listening on port \\d+'

[[apps]]
name = "migrate"
script = "m.js"
autorestart = false
depends_on = [{ name = "db", condition = "log_ready" }]

[[apps]]
name = "api"
script = "a.js"
health_check = { url = "http://127.0.0.1:3000/health" }
depends_on = [{ name = "migrate", condition = "completed_successfully" }, "db"]

[[apps]]
name = "web"
script = "w.js"
depends_on = [{ name = "api", condition = "healthy" }]
`

const js = `module.exports = ${JSON.stringify(json, null, 2)}\n`

const expectProblems = (
  doc: object,
  problems: ReadonlyArray<ConfigProblem>,
  options: { readonly strict?: boolean } = {}
) =>
  Effect.gen(function* () {
    const { error } = yield* loadFilesError({ "pmfx.json": JSON.stringify(doc) }, "pmfx.json", options)
    expect(error._tag).toBe("INVALID_CONFIG")
    if (error._tag !== "INVALID_CONFIG") return
    expect(error.details.problems).toEqual(problems)
  }).pipe(Effect.provide(ConfigLoader.Default))

describe("depends_on conditions", () => {
  for (const [file, text] of [
    ["eco.json", JSON.stringify(json)],
    // JSON files are read as JSON5: comments, unquoted keys, trailing commas.
    [
      "ecosystem.json",
      `// JSON5\n{ apps: [ { name: "db", script: "db.js", ready_log_line: 'listening on port \\\\d+' },
      { name: "migrate", script: "m.js", autorestart: false, depends_on: [{ name: "db", condition: "log_ready" }] },
      { name: "api", script: "a.js", health_check: { url: "http://127.0.0.1:3000/health" }, depends_on: [{ name: "migrate", condition: "completed_successfully" }, "db",] },
      { name: "web", script: "w.js", depends_on: [{ name: "api", condition: "healthy" }] }, ] }`
    ],
    ["eco.yaml", yaml],
    ["eco.toml", toml],
    ["eco.config.js", js]
  ] as const) {
    it.effect(`${file}: names, conditions and ready_log_line load the same`, () =>
      Effect.gen(function* () {
        const loaded = yield* loadFiles({ [file]: text }, file)
        expect(loaded.warnings).toEqual([])
        expect(loaded.apps.map((app) => [app.name, app.depends_on, app.ready_log_line])).toEqual(expected)
      }).pipe(Effect.provide(ConfigLoader.Default))
    )
  }

  it.effect("an unknown condition: its field, and the closest condition", () =>
    expectProblems(
      {
        apps: [
          { name: "db", script: "db.js" },
          { name: "api", script: "a.js", depends_on: ["db", { name: "db", condition: "helthy" }] }
        ]
      },
      [
        {
          field: "apps[1].depends_on[1].condition",
          value: "helthy",
          message: 'unknown condition "helthy"',
          suggestion: 'did you mean "healthy"?'
        }
      ]
    )
  )

  it.effect("a condition that is not a word, and an entry without a name or of the wrong type", () =>
    expectProblems(
      {
        apps: [
          { name: "db", script: "db.js" },
          { name: "api", script: "a.js", depends_on: [{ name: "db", condition: 3 }, { condition: "online" }, 7] }
        ]
      },
      [
        {
          field: "apps[1].depends_on[0].condition",
          value: 3,
          message: "expected one of online, healthy, completed_successfully, log_ready, got number 3",
          suggestion: "write one of online, healthy, completed_successfully, log_ready"
        },
        {
          field: "apps[1].depends_on[1].name",
          value: null,
          message: "is required",
          suggestion: "add name: the app to wait for"
        },
        {
          field: "apps[1].depends_on[2]",
          value: 7,
          message: "expected an app name or { name, condition }, got number 7",
          suggestion: 'write "db" or { "name": "db", "condition": "healthy" }'
        }
      ]
    )
  )

  it.effect("conditions the dependency can never meet are refused, each saying what to add", () =>
    expectProblems(
      {
        apps: [
          { name: "db", script: "db.js" },
          {
            name: "api",
            script: "a.js",
            depends_on: [
              { name: "db", condition: "healthy" },
              { name: "db", condition: "log_ready" },
              { name: "db", condition: "completed_successfully" }
            ]
          }
        ]
      },
      [
        {
          field: "apps[1].depends_on[0].condition",
          value: "healthy",
          message: '"db" has no health check, so it can never be healthy',
          suggestion: 'add a health_check to db, or wait for condition "online"'
        },
        {
          field: "apps[1].depends_on[1].condition",
          value: "log_ready",
          message: '"db" has no ready_log_line, so no line of its output can say it is ready',
          suggestion:
            'set ready_log_line on db (a regular expression like "listening on"), or wait for condition "online"'
        },
        {
          field: "apps[1].depends_on[2].condition",
          value: "completed_successfully",
          message: '"db" is restarted when it exits, so it never stays completed',
          suggestion:
            "set autorestart: false on db (a one-shot app such as a migration), or add 0 to its stop_exit_codes"
        }
      ]
    )
  )

  it.effect("ready_log_line: a pattern RE2 cannot run is refused at load time", () =>
    expectProblems({ apps: [{ name: "db", script: "db.js", ready_log_line: "(ready) \\1" }] }, [
      {
        field: "apps[0].ready_log_line",
        value: "(ready) \\1",
        message:
          "backreferences like \\1 are not supported (ready_log_line uses RE2 syntax (like grep -E and Go), see docs/configuration.md)",
        suggestion:
          "match the repeated text itself, like (\\w+) \\w+ or error: error, or narrow the search with level, stream or since"
      }
    ])
  )

  it.effect("an unknown key in an entry is a warning naming the closest key (a problem with --strict)", () =>
    Effect.gen(function* () {
      const doc = {
        apps: [
          { name: "db", script: "db.js" },
          { name: "api", script: "a.js", depends_on: [{ name: "db", conditon: "healthy" }] }
        ]
      }
      const loaded = yield* loadFiles({ "pmfx.json": doc }, "pmfx.json")
      expect(loaded.warnings).toEqual([
        'apps[1].depends_on[0].conditon: unknown setting "conditon" — did you mean "condition"? (ignored)'
      ])
      expect(loaded.apps[1]!.depends_on).toEqual([{ name: "db", condition: "online" }])
      yield* expectProblems(
        doc,
        [
          {
            field: "apps[1].depends_on[0].conditon",
            value: "healthy",
            message: 'unknown setting "conditon"',
            suggestion: 'did you mean "condition"?'
          }
        ],
        { strict: true }
      )
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unknown app in an entry is still found, with the closest name", () =>
    expectProblems(
      {
        apps: [
          { name: "db", script: "db.js" },
          { name: "api", script: "a.js", depends_on: [{ name: "dbb", condition: "online" }] }
        ]
      },
      [
        {
          field: "apps[1].depends_on[0]",
          value: "dbb",
          message: 'no app named "dbb" in this file',
          suggestion: 'did you mean "db"?'
        }
      ]
    )
  )
})
