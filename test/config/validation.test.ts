/**
 * INVALID_CONFIG (docs/architecture.md §6, docs/api.md): each problem names the setting's path (`apps[1].max_memory_restart`),
 * the offending value and a suggestion; every problem of a file is reported at once, the first one
 * repeated at the top of `details`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import type { ConfigParseError, ConfigProblem, InvalidConfig } from "../../src/domain/errors"
import { ecosystem, loadFiles, loadFilesError } from "./helpers"

const sizeHint = "a size like 100K, 512M or 1G (a bare number is bytes)"
const durationHint = "a duration like 500ms, 10s, 1m or 2h (a bare number is milliseconds)"
const portHint = "a port (3000), a range (3000-3003) or an automatic range (auto:5000-5100), ports 1-65535"
const instancesHint = 'an instance count (a whole number, "max", 0 for one per CPU or -1 for one per CPU but one)'

/** Asserts an INVALID_CONFIG carrying exactly `problems`, headed by the first, for `file`. */
const expectProblems = (
  error: ConfigParseError | InvalidConfig,
  file: string,
  problems: ReadonlyArray<ConfigProblem>
) => {
  expect(error._tag).toBe("INVALID_CONFIG")
  const first = problems[0]!
  expect(error.details).toEqual({
    field: first.field,
    value: first.value,
    suggestion: first.suggestion,
    file,
    problems
  })
  expect(error.message).toBe(
    problems.length === 1
      ? `${first.field}: ${first.message}`
      : `${problems.length} problems in ${file}; first ${first.field}: ${first.message}`
  )
}

/** Writes `doc` as pmfx.json, loads it (`strict`: unknown keys are problems), and checks the problems it yields. */
const expectInvalid = (
  doc: unknown,
  problems: ReadonlyArray<ConfigProblem>,
  options: { readonly strict?: boolean } = {}
) =>
  Effect.gen(function* () {
    const { error, dir } = yield* loadFilesError({ "pmfx.json": JSON.stringify(doc) }, "pmfx.json", options)
    expectProblems(error, path.join(dir, "pmfx.json"), problems)
  })

const api = (settings: object = {}) => ({ name: "api", script: "server.js", ...settings })

describe("the shape of the file", () => {
  it.effect("no apps array: field apps", () =>
    expectInvalid({ webhooks: [] }, [
      {
        field: "apps",
        value: null,
        message: "is required: the file has no apps array",
        suggestion: 'write "apps": [ { "name": "api", "script": "server.js" } ]'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("apps that is not an array: field apps, with the value", () =>
    expectInvalid({ apps: { name: "api", script: "a.js" } }, [
      {
        field: "apps",
        value: { name: "api", script: "a.js" },
        message: "must be an array of app definitions",
        suggestion: 'write "apps": [ { "name": "api", "script": "server.js" } ]'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an empty apps array", () =>
    expectInvalid({ apps: [] }, [
      { field: "apps", value: [], message: "has no app", suggestion: "define at least one app with a script" }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a bare list of apps is the app list, as PM2 reads it", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles({ "pmfx.json": [api(), { script: "worker.js" }] }, "pmfx.json")
      expect(loaded.apps.map((app) => app.name)).toEqual(["api", "worker"])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a string is not an ecosystem", () =>
    expectInvalid("server.js", [
      {
        field: "",
        value: "server.js",
        message: "an ecosystem file must be an object with an apps array",
        suggestion: 'write { "apps": [ { "name": "api", "script": "server.js" } ] }'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an app that is not an object", () =>
    expectInvalid({ apps: [api(), "worker.js"] }, [
      {
        field: "apps[1]",
        value: "worker.js",
        message: "must be an object of settings",
        suggestion: 'write { "name": "api", "script": "server.js" }'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an unknown top-level key suggests the closest (--strict)", () =>
    expectInvalid(
      { apps: [api()], webhook: [] },
      [{ field: "webhook", value: [], message: 'unknown setting "webhook"', suggestion: 'did you mean "webhooks"?' }],
      { strict: true }
    ).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("one setting", () => {
  it.effect("an app without script: apps[0].script", () =>
    expectInvalid({ apps: [{ name: "api", instances: 2 }] }, [
      { field: "apps[0].script", value: null, message: "is required", suggestion: "add script" }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a wrong type: autorestart [1]", () =>
    expectInvalid({ apps: [api({ autorestart: [1] })] }, [
      {
        field: "apps[0].autorestart",
        value: [1],
        message: "expected true or false, got an array",
        suggestion: "write true or false"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('max_memory_restart "12X" in the second app: apps[1].max_memory_restart', () =>
    expectInvalid({ apps: [api(), { name: "worker", script: "w.js", max_memory_restart: "12X" }] }, [
      {
        field: "apps[1].max_memory_restart",
        value: "12X",
        message: `"12X" is not ${sizeHint}`,
        suggestion: `write ${sizeHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("max_line_length outside 1K to 16M, or not a size, names the range", () => {
    const suggestion = "write a size from 1K to 16M, like 1M or 4M"
    return expectInvalid(
      {
        apps: [
          api({ max_line_length: "512" }),
          api({ name: "b", log: { max_line_length: "1G" } }),
          api({ name: "c", max_line_length: "lots" })
        ]
      },
      [
        { field: "apps[0].max_line_length", value: "512", message: "512 is below the minimum 1K", suggestion },
        { field: "apps[1].log.max_line_length", value: "1G", message: "1G is above the maximum 16M", suggestion },
        { field: "apps[2].max_line_length", value: "lots", message: `"lots" is not ${sizeHint}`, suggestion }
      ]
    ).pipe(Effect.provide(ConfigLoader.Default))
  })

  it.effect("max_line_length defaults to 1M and is read on the app or in log", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.json": {
            apps: [api(), api({ name: "b", max_line_length: "4M" }), api({ name: "c", log: { max_line_length: 2048 } })]
          }
        },
        "pmfx.json"
      )
      expect(loaded.apps.map((app) => app.max_line_length)).toEqual([1024 * 1024, 4 * 1024 * 1024, 2048])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('min_uptime "ten seconds"', () =>
    expectInvalid({ apps: [api({ min_uptime: "ten seconds" })] }, [
      {
        field: "apps[0].min_uptime",
        value: "ten seconds",
        message: `"ten seconds" is not ${durationHint}`,
        suggestion: `write ${durationHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('port "70000" is out of range', () =>
    expectInvalid({ apps: [api({ port: "70000" })] }, [
      {
        field: "apps[0].port",
        value: "70000",
        message: '"70000" is outside the port numbers 1-65535',
        suggestion: `write ${portHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('port "5-3" is a backwards range', () =>
    expectInvalid({ apps: [api({ port: "5-3" })] }, [
      {
        field: "apps[0].port",
        value: "5-3",
        message: '"5-3" is a range whose last port is below its first',
        suggestion: `write ${portHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('port "auto:x" is not a range', () =>
    expectInvalid({ apps: [api({ port: "auto:x" })] }, [
      {
        field: "apps[0].port",
        value: "auto:x",
        message: `"auto:x" is not ${portHint}`,
        suggestion: `write ${portHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('port "auto:5000" needs a range', () =>
    expectInvalid({ apps: [api({ port: "auto:5000" })] }, [
      {
        field: "apps[0].port",
        value: "auto:5000",
        message: '"auto:5000" needs a range after auto:, like auto:5000-5100',
        suggestion: `write ${portHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a port range with fewer ports than instances", () =>
    expectInvalid({ apps: [api({ port: "3000-3001", instances: 3 })] }, [
      {
        field: "apps[0].port",
        value: "3000-3001",
        message: "offers 2 ports for 3 instances",
        suggestion: "give a range with one port per instance, like 3000-3002, or auto:<first>-<last>"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('instances "lots"', () =>
    expectInvalid({ apps: [api({ instances: "lots" })] }, [
      {
        field: "apps[0].instances",
        value: "lots",
        message: `"lots" is not ${instancesHint}`,
        suggestion: `write ${instancesHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("instances 1.5", () =>
    expectInvalid({ apps: [api({ instances: 1.5 })] }, [
      {
        field: "apps[0].instances",
        value: 1.5,
        message: `1.5 is not ${instancesHint}`,
        suggestion: `write ${instancesHint}`
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("more than 1024 instances, written or substituted; the port check does not repeat it", () =>
    Effect.gen(function* () {
      const suggestion = "write at most 1024 instances"
      yield* expectInvalid(
        { apps: [api({ instances: 1025, port: "3000" }), api({ name: "worker", instances: 1e12 })] },
        [
          { field: "apps[0].instances", value: 1025, message: "asks for 1025 instances, more than 1024", suggestion },
          { field: "apps[1].instances", value: 1e12, message: `asks for ${1e12} instances, more than 1024`, suggestion }
        ]
      )
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": JSON.stringify({ apps: [api({ instances: "${WORKERS}" })] }) },
        "pmfx.json",
        {
          environment: { WORKERS: "2000" }
        }
      )
      expectProblems(error, path.join(dir, "pmfx.json"), [
        { field: "apps[0].instances", value: "2000", message: "asks for 2000 instances, more than 1024", suggestion }
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect('instances "max" on a machine with more than 1024 CPUs', () =>
    Effect.gen(function* () {
      const { error, dir } = yield* loadFilesError(
        { "pmfx.json": JSON.stringify({ apps: [api({ instances: "max" })] }) },
        "pmfx.json",
        { cpus: 2048 }
      )
      expectProblems(error, path.join(dir, "pmfx.json"), [
        {
          field: "apps[0].instances",
          value: "max",
          message: "asks for 2048 instances, more than 1024",
          suggestion: "write at most 1024 instances"
        }
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("exactly 1024 instances are accepted", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "pmfx.json": JSON.stringify({ apps: [api({ instances: 1024 })] }) },
        "pmfx.json"
      )
      expect(loaded.apps[0]!.instances).toBe(1024)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a health check without url: apps[0].health_check.url", () =>
    expectInvalid({ apps: [api({ health_check: { interval: 5 } })] }, [
      {
        field: "apps[0].health_check.url",
        value: null,
        message: "is required for an http health check",
        suggestion: "write the URL to check, like http://127.0.0.1:3000/health"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a nested wrong value: apps[0].log.log_type", () =>
    expectInvalid({ apps: [api({ log: { log_type: "xml" } })] }, [
      {
        field: "apps[0].log.log_type",
        value: "xml",
        message: 'expected one of "text", "json", got string "xml"',
        suggestion: 'write one of "text", "json"'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("names", () => {
  it.effect('an app named "42" and one named "all"', () =>
    expectInvalid({ apps: [api({ name: "42" }), { name: "all", script: "b.js" }] }, [
      {
        field: "apps[0].name",
        value: "42",
        message: '"42" cannot be told apart from a numeric process id',
        suggestion: 'use a name with a letter in it, like "app-42"'
      },
      {
        field: "apps[1].name",
        value: "all",
        message: '"all" cannot be told apart from the keyword all',
        suggestion: 'use another name, like "all-apps"'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a name with a control character (names with spaces and / are fine)", () =>
    expectInvalid({ apps: [api({ name: "my\napp" }), api({ name: "my app/1", script: "b.js" })] }, [
      {
        field: "apps[0].name",
        value: "my\napp",
        message: "must not hold control characters (tabs, newlines, escapes)",
        suggestion: 'use a name like "my app"'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("two apps with the same name: apps[1].name", () =>
    expectInvalid({ apps: [api(), api({ script: "other.js" })] }, [
      {
        field: "apps[1].name",
        value: "api",
        message: '"api" is already the name of apps[0]',
        suggestion: "give every app its own name"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("two apps named after the same script file", () =>
    expectInvalid({ apps: [{ script: "./a/server.js" }, { script: "./b/server.js" }] }, [
      {
        field: "apps[1].name",
        value: "server",
        message: '"server" is already the name of apps[0]',
        suggestion: "give every app its own name"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("unknown keys, with --strict", () => {
  it.effect("scirpt suggests script, and script is then reported missing", () =>
    expectInvalid(
      { apps: [{ name: "api", scirpt: "server.js" }] },
      [
        {
          field: "apps[0].scirpt",
          value: "server.js",
          message: 'unknown setting "scirpt"',
          suggestion: 'did you mean "script"?'
        },
        { field: "apps[0].script", value: null, message: "is required", suggestion: 'rename "scirpt" to "script"' }
      ],
      { strict: true }
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("health_check.urll suggests url", () =>
    expectInvalid(
      { apps: [api({ health_check: { urll: "http://127.0.0.1:3000/health" } })] },
      [
        {
          field: "apps[0].health_check.urll",
          value: "http://127.0.0.1:3000/health",
          message: 'unknown setting "urll"',
          suggestion: 'did you mean "url"?'
        },
        // (Without --strict, only this one is a problem; the unknown key is a warning.)
        {
          field: "apps[0].health_check.url",
          value: null,
          message: "is required for an http health check",
          suggestion: "write the URL to check, like http://127.0.0.1:3000/health"
        }
      ],
      { strict: true }
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a typo in a webhook suggests the webhook's key", () =>
    expectInvalid(
      { apps: [api()], webhooks: [{ url: "http://127.0.0.1:9/a" }, { urll: "http://127.0.0.1:9/b" }] },
      [
        {
          field: "webhooks[1].urll",
          value: "http://127.0.0.1:9/b",
          message: 'unknown setting "urll"',
          suggestion: 'did you mean "url"?'
        },
        { field: "webhooks[1].url", value: null, message: "is required", suggestion: 'rename "urll" to "url"' }
      ],
      { strict: true }
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a webhook URL that is not http(s) is reported with the block's other problems", () =>
    expectInvalid(
      {
        apps: [api()],
        webhooks: [{ url: "ftp://h/x" }, { url: "http://127.0.0.1:9/b", enabled: "no" }]
      },
      [
        {
          field: "webhooks[1].enabled",
          value: "no",
          message: 'expected true or false, got string "no"',
          suggestion: "write true or false"
        },
        {
          field: "webhooks[0].url",
          value: "ftp://h/x",
          message: "is not an http(s) URL",
          suggestion: "write a URL like http://127.0.0.1:8080/hook"
        }
      ]
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("typos in nested alert settings suggest their keys", () =>
    expectInvalid(
      { apps: [api({ alerts: { memroy: "1G" } })], alerts: { restart_loop: { restart: 3 } } },
      [
        {
          field: "alerts.restart_loop.restart",
          value: 3,
          message: 'unknown setting "restart"',
          suggestion: 'did you mean "restarts"?'
        },
        {
          field: "apps[0].alerts.memroy",
          value: "1G",
          message: 'unknown setting "memroy"',
          suggestion: 'did you mean "memory"?'
        }
      ],
      { strict: true }
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a key like no known one gets no guess", () =>
    Effect.gen(function* () {
      const { error } = yield* loadFilesError(
        { "pmfx.json": ecosystem(api({ frobnicate_everything: 1 })) },
        "pmfx.json",
        { strict: true }
      )
      expect(error._tag).toBe("INVALID_CONFIG")
      expect(error.details).toMatchObject({ field: "apps[0].frobnicate_everything", value: 1 })
      expect(error.details.suggestion).not.toContain("did you mean")
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("depends_on", () => {
  it.effect("naming an unknown app: apps[0].depends_on[0], suggesting the closest name", () =>
    expectInvalid({ apps: [api({ depends_on: ["wroker"] }), { name: "worker", script: "w.js" }] }, [
      {
        field: "apps[0].depends_on[0]",
        value: "wroker",
        message: 'no app named "wroker" in this file',
        suggestion: 'did you mean "worker"?'
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a cycle of two", () =>
    expectInvalid({ apps: [api({ depends_on: ["worker"] }), { name: "worker", script: "w.js", depends_on: "api" }] }, [
      {
        field: "apps[1].depends_on",
        value: ["api"],
        message: "depends_on forms a cycle: api → worker → api",
        suggestion: "remove one of the dependencies so the apps can start in order"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a cycle of three is reported once, where it closes", () =>
    expectInvalid(
      {
        apps: [
          api({ depends_on: ["b"] }),
          { name: "b", script: "b.js", depends_on: ["c"] },
          { name: "c", script: "c.js", depends_on: ["api"] },
          { name: "d", script: "d.js", depends_on: ["api"] }
        ]
      },
      [
        {
          field: "apps[2].depends_on",
          value: ["api"],
          message: "depends_on forms a cycle: api → b → c → api",
          suggestion: "remove one of the dependencies so the apps can start in order"
        }
      ]
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an app depending on itself", () =>
    expectInvalid({ apps: [api({ depends_on: ["api"] })] }, [
      {
        field: "apps[0].depends_on[0]",
        value: "api",
        message: "an app cannot depend on itself",
        suggestion: "remove it"
      }
    ]).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a valid order loads", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.json": ecosystem(
            api({ depends_on: ["db", "cache"] }),
            { name: "db", script: "db.js" },
            { name: "cache", script: "c.js", depends_on: "db" }
          )
        },
        "pmfx.json"
      )
      // A bare name is the condition online.
      expect(loaded.apps.map((a) => [a.name, a.depends_on.map((d) => `${d.name}:${d.condition}`)])).toEqual([
        ["api", ["db:online", "cache:online"]],
        ["db", []],
        ["cache", ["db:online"]]
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("every problem at once", () => {
  it.effect("problems in several apps and settings are all reported, in order", () =>
    Effect.gen(function* () {
      const doc = {
        apps: [
          { name: "api", scirpt: "a.js", instances: "lots" },
          { name: "worker", script: "w.js", max_memory_restart: "12X", port: "70000", autorestart: "sometimes" },
          { name: "worker", script: "x.js", depends_on: ["nope"], env: { TOKEN: "${TOKEN}" } }
        ]
      }
      const { error, dir } = yield* loadFilesError({ "pmfx.json": doc }, "pmfx.json", { strict: true })
      expect(error._tag).toBe("INVALID_CONFIG")
      if (error._tag !== "INVALID_CONFIG") return
      expect(error.details.file).toBe(path.join(dir, "pmfx.json"))
      const fields = (error.details.problems ?? []).map((p) => p.field)
      expect([...fields].sort()).toEqual(
        [
          "apps[2].env.TOKEN",
          "apps[0].scirpt",
          "apps[0].script",
          "apps[0].instances",
          "apps[1].max_memory_restart",
          "apps[1].port",
          "apps[1].autorestart",
          "apps[2].name",
          "apps[2].depends_on[0]"
        ].sort()
      )
      expect(error.details.problems).toHaveLength(9)
      expect(error.message).toMatch(/^9 problems in /)
      // The first problem is repeated at the top.
      expect(error.details.field).toBe(fields[0])
      expect(error.details.problems?.find((p) => p.field === "apps[1].autorestart")).toEqual({
        field: "apps[1].autorestart",
        value: "sometimes",
        message: 'expected true or false, got string "sometimes"',
        suggestion: "write true or false"
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("the same file in YAML gives the same fields", () =>
    Effect.gen(function* () {
      const yaml = [
        "apps:",
        "  - name: api",
        "    scirpt: a.js",
        "  - name: worker",
        "    script: w.js",
        "    max_memory_restart: 12X",
        "    min_uptime: ten seconds",
        ""
      ].join("\n")
      const { error } = yield* loadFilesError({ "pmfx.yaml": yaml }, "pmfx.yaml", { strict: true })
      expect(error._tag).toBe("INVALID_CONFIG")
      if (error._tag !== "INVALID_CONFIG") return
      expect(error.details.problems?.map((p) => [p.field, p.value])).toEqual([
        ["apps[0].scirpt", "a.js"],
        ["apps[0].script", null],
        ["apps[1].max_memory_restart", "12X"],
        ["apps[1].min_uptime", "ten seconds"]
      ])
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
