/**
 * The four formats (docs/architecture.md §6): the example files describe the same three apps and must load to
 * identical definitions, with defaults applied (docs/architecture.md §4), absolute paths, durations in
 * milliseconds and sizes in bytes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { ConfigLoader } from "../../src/config/ConfigLoader"
import { type AppDefinition, pm2AppDefaults } from "../../src/domain/AppDefinition"
import { ecosystem, examplesDir, load, loadFiles, withTempDir } from "./helpers"

const exampleFiles = ["ecosystem.json", "ecosystem.yaml", "ecosystem.toml", "ecosystem.config.mjs"]

/** What every example file must resolve to. */
const expectedApps = (dir: string, file: string | null = null): ReadonlyArray<AppDefinition> => {
  const common = {
    config_file: file,
    namespace: "default",
    args: [],
    interpreter: null,
    cwd: dir,
    instances: 1,
    port: null,
    env: {},
    env_file: null,
    max_memory_restart: null,
    max_restarts: 16,
    min_uptime: 1000,
    restart_delay: 0,
    exp_backoff_restart_delay: 100,
    kill_timeout: 5000,
    autorestart: true,
    user: null,
    group: null,
    umask: null,
    watch: false,
    watch_paths: [],
    ignore_watch: [],
    watch_options: {},
    depends_on: [],
    ready_log_line: null,
    out_file: null,
    error_file: null,
    log_file: null,
    pid_file: null,
    log_date_format: "YYYY-MM-DDTHH:mm:ss.SSSZ",
    log_type: "text",
    merge_logs: false,
    max_log_size: null,
    max_log_files: 10,
    compress_logs: false,
    max_line_length: 1024 * 1024,
    shell: null,
    rotation_schedule: null,
    health_check: null,
    alerts: null,
    exec_mode: "fork",
    wait_ready: false,
    listen_timeout: 3000,
    shutdown_with_message: false,
    ...pm2AppDefaults
  } as const
  return [
    {
      ...common,
      name: "api",
      script: path.join(dir, "apps/server.js"),
      instances: 2,
      port: "4000-4001",
      env: { GREETING: "hello" },
      max_memory_restart: 209_715_200,
      kill_timeout: 3000,
      health_check: {
        enabled: true,
        check_type: "http",
        url: "http://127.0.0.1:{port}/health",
        script: null,
        timeout: 2000,
        interval: 10_000,
        retries: 3
      }
    },
    {
      ...common,
      name: "worker",
      namespace: "jobs",
      script: path.join(dir, "apps/worker.js"),
      env: { TICK_MS: "1000" },
      restart_delay: 1000
    },
    {
      ...common,
      name: "nightly-job",
      namespace: "jobs",
      script: path.join(dir, "apps/failing-job.js"),
      max_restarts: 3,
      min_uptime: 2000,
      depends_on: [{ name: "api", condition: "online" }]
    }
  ]
}

describe("example ecosystem files", () => {
  for (const name of exampleFiles) {
    it.effect(`${name} loads to the expected definitions`, () =>
      Effect.gen(function* () {
        const file = path.join(examplesDir, name)
        const loaded = yield* load(file)
        expect(loaded.file).toBe(file)
        // The loader records the file each app came from (shown by `pmfx show`).
        expect(loaded.apps).toEqual(expectedApps(examplesDir, file))
        expect(loaded.warnings).toEqual([])
        expect(loaded.webhooks).toEqual([])
        expect(loaded.alerts).toBeNull()
      }).pipe(Effect.provide(ConfigLoader.Default))
    )
  }

  it.effect("all four formats load to identical apps, key order included", () =>
    Effect.gen(function* () {
      const loaded = yield* Effect.forEach(exampleFiles, (name) => load(path.join(examplesDir, name)))
      // Each app records its own file (config_file); everything else is the same.
      const [first, ...rest] = loaded.map((l) => l.apps.map((app) => ({ ...app, config_file: null })))
      for (const apps of rest) {
        expect(apps).toStrictEqual(first)
        expect(JSON.stringify(apps)).toBe(JSON.stringify(first))
      }
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a relative path to the file is made absolute, and paths resolve against its folder", () =>
    Effect.gen(function* () {
      const relative = path.relative(process.cwd(), path.join(examplesDir, "ecosystem.yaml"))
      const loaded = yield* load(relative)
      expect(path.isAbsolute(loaded.file ?? "")).toBe(true)
      expect(loaded.file).toBe(path.join(examplesDir, "ecosystem.yaml"))
      for (const app of loaded.apps) {
        expect(path.isAbsolute(app.script)).toBe(true)
        expect(app.cwd).toBe(examplesDir)
      }
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})

describe("formats and extensions", () => {
  const app = { name: "api", script: "./server.js", max_memory_restart: "1G", kill_timeout: "1m" }
  const expectApi = (apps: ReadonlyArray<AppDefinition>) => {
    expect(apps).toHaveLength(1)
    expect(apps[0]!.name).toBe("api")
    expect(apps[0]!.max_memory_restart).toBe(1024 ** 3)
    expect(apps[0]!.kill_timeout).toBe(60_000)
    expect(path.isAbsolute(apps[0]!.script)).toBe(true)
    expect(path.basename(apps[0]!.script)).toBe("server.js")
  }

  it.effect(".yml is read as YAML", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        {
          "pmfx.yml":
            "apps:\n  - name: api\n    script: ./server.js\n    max_memory_restart: 1G\n    kill_timeout: 1m\n"
        },
        "pmfx.yml"
      )
      expectApi(loaded.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(".cjs with module.exports", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "ecosystem.config.cjs": `module.exports = ${JSON.stringify(ecosystem(app))}\n` },
        "ecosystem.config.cjs"
      )
      expectApi(loaded.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(".js (CommonJS) with module.exports", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "ecosystem.config.js": `module.exports = ${JSON.stringify(ecosystem(app))}\n` },
        "ecosystem.config.js"
      )
      expectApi(loaded.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect(".mjs with a named apps export", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "ecosystem.config.mjs": `export const apps = ${JSON.stringify([app])}\n` },
        "ecosystem.config.mjs"
      )
      expectApi(loaded.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a JSON file starting with a byte-order mark loads, as YAML and TOML ones do", () =>
    Effect.gen(function* () {
      const json = yield* loadFiles({ "pmfx.json": "\uFEFF" + JSON.stringify(ecosystem(app)) }, "pmfx.json")
      expectApi(json.apps)
      const yaml = yield* loadFiles(
        {
          "pmfx.yaml":
            "\uFEFFapps:\n  - name: api\n    script: ./server.js\n    max_memory_restart: 1G\n    kill_timeout: 1m\n"
        },
        "pmfx.yaml"
      )
      expectApi(yaml.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("the extension is matched case-insensitively", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles({ "ECOSYSTEM.JSON": ecosystem(app) }, "ECOSYSTEM.JSON")
      expectApi(loaded.apps)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("a .js file is read afresh on every load", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const file = path.join(dir, "ecosystem.config.js")
        fs.writeFileSync(file, `module.exports = ${JSON.stringify(ecosystem({ name: "one", script: "a.js" }))}\n`)
        const first = yield* load(file)
        fs.writeFileSync(file, `module.exports = ${JSON.stringify(ecosystem({ name: "two", script: "a.js" }))}\n`)
        const second = yield* load(file)
        expect(first.apps.map((a) => a.name)).toEqual(["one"])
        expect(second.apps.map((a) => a.name)).toEqual(["two"])
      })
    ).pipe(Effect.provide(ConfigLoader.Default))
  )

  // Node ≥ 20.19 `require()`s ES modules into a cache `require.cache` cannot clear. The test runner
  // evaluates modules in a vm context where `import()` from the loader is unavailable, so this runs
  // the loader as the CLI does: bundled to CommonJS by esbuild, in a plain `node`.
  it.effect("ES module files (.mjs, and .js holding ESM) are read afresh on every load by plain node", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        const source = fileURLToPath(new URL("../../src/config/loadModuleConfig.ts", import.meta.url))
        fs.writeFileSync(
          path.join(dir, "probe.ts"),
          [
            `import * as fs from "node:fs"`,
            `import { loadModuleConfig } from ${JSON.stringify(source)}`,
            `const names = async (file: string) => {`,
            `  const loaded = await loadModuleConfig(file)`,
            `  return loaded._tag === "Right" ? (loaded.right as { apps: Array<{ name: string }> }).apps.map((a) => a.name) : loaded.left`,
            `}`,
            `const main = async () => {`,
            `  const out: Array<unknown> = []`,
            `  for (const file of process.argv.slice(2)) {`,
            `    fs.writeFileSync(file, "export default { apps: [{ name: 'one', script: 'a.js' }] }\\n")`,
            `    out.push(await names(file))`,
            `    fs.writeFileSync(file, "export default { apps: [{ name: 'two', script: 'a.js' }] }\\n")`,
            `    out.push(await names(file))`,
            `    fs.writeFileSync(file, "const x = 1\\nexport default { apps: [{ name: 'two' script: 'a.js' }] }\\n")`,
            `    out.push(await names(file))`,
            `  }`,
            `  process.stdout.write(JSON.stringify(out))`,
            `}`,
            `void main()`
          ].join("\n")
        )
        yield* Effect.promise(() =>
          build({
            entryPoints: [path.join(dir, "probe.ts")],
            outfile: path.join(dir, "probe.cjs"),
            bundle: true,
            platform: "node",
            format: "cjs",
            target: "node20",
            logLevel: "silent"
          })
        )
        fs.mkdirSync(path.join(dir, "esm"))
        fs.writeFileSync(path.join(dir, "esm/package.json"), '{ "type": "module" }')
        const output = execFileSync(
          process.execPath,
          [path.join(dir, "probe.cjs"), path.join(dir, "a.config.mjs"), path.join(dir, "esm/b.config.js")],
          {
            encoding: "utf8"
          }
        )
        const [mjsOne, mjsTwo, mjsBroken, jsOne, jsTwo, jsBroken] = JSON.parse(output) as Array<unknown>
        expect([mjsOne, mjsTwo, jsOne, jsTwo]).toEqual([["one"], ["two"], ["one"], ["two"]])
        // An edit that breaks the file is reported, not hidden behind the cached module.
        expect(mjsBroken).toMatchObject({
          message: "the file threw while loading: SyntaxError: Unexpected identifier 'script'"
        })
        expect(jsBroken).toMatchObject({
          message: "the file threw while loading: SyntaxError: Unexpected identifier 'script'"
        })
      })
    )
  )

  it.effect("TOML integers, YAML numbers and JSON numbers decode alike; sizes and durations take every unit", () =>
    Effect.gen(function* () {
      const toml = [
        "[[apps]]",
        'name = "api"',
        'script = "server.js"',
        "instances = 3",
        'port = "3000-3002"',
        'max_memory_restart = "512K"',
        "min_uptime = 1500",
        'restart_delay = "250ms"',
        'kill_timeout = "2h"',
        "max_restarts = 0",
        "[apps.health_check]",
        'url = "http://127.0.0.1:3000/"',
        'interval = "1m"',
        'timeout = "500ms"',
        ""
      ].join("\n")
      const loaded = yield* loadFiles({ "pmfx.toml": toml }, "pmfx.toml")
      const app = loaded.apps[0]!
      expect(app.instances).toBe(3)
      expect(app.port).toBe("3000-3002")
      expect(app.max_memory_restart).toBe(512 * 1024)
      expect(app.min_uptime).toBe(1500)
      expect(app.restart_delay).toBe(250)
      expect(app.kill_timeout).toBe(7_200_000)
      expect(app.max_restarts).toBe(0)
      expect(app.health_check).toEqual({
        enabled: true,
        check_type: "http",
        url: "http://127.0.0.1:3000/",
        script: null,
        timeout: 500,
        interval: 60_000,
        retries: 3
      })
    }).pipe(Effect.provide(ConfigLoader.Default))
  )

  it.effect("an app without a name is named after its script; an unset health check interval is 30 s", () =>
    Effect.gen(function* () {
      const loaded = yield* loadFiles(
        { "pmfx.json": ecosystem({ script: "./api/server.js", health_check: { url: "http://127.0.0.1:1/" } }) },
        "pmfx.json"
      )
      expect(loaded.apps[0]!.name).toBe("server")
      expect(loaded.apps[0]!.health_check?.interval).toBe(30_000)
      expect(loaded.apps[0]!.health_check?.timeout).toBe(5000)
    }).pipe(Effect.provide(ConfigLoader.Default))
  )
})
