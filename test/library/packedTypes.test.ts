/**
 * The published types (docs/library.md, "Types"): the package as `npm pack` makes it, installed in
 * a consumer project with a strict tsconfig, compiles against the public API — and rejects a wrong
 * use of it, so declarations that are missing, `any` or out of step with the code fail the test.
 * The consumer's dependencies are links to this checkout's node_modules (no network).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const root = path.resolve(__dirname, "../..")
const packageJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  readonly dependencies: Record<string, string>
}

/** Runs a command to its end (asynchronously: a blocked worker would miss vitest's heartbeats). */
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  new Promise<{ readonly status: number | null; readonly stdout: string; readonly output: string }>((resolve) => {
    execFile(
      command,
      args,
      { cwd, encoding: "utf8", timeout: 110_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resolve({ status, stdout, output: `${stdout}${stderr}` })
      }
    )
  })

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "Node16",
    moduleResolution: "Node16",
    // @effect/platform's declarations name DOM types (Storage, Transferable, MessagePort), so a
    // consumer that checks library declarations needs the DOM lib — with or without pmfx.
    lib: ["ES2023", "DOM"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noUnusedLocals: true,
    // pmfx's declarations (and Effect's) are checked too, under these same strict settings.
    skipLibCheck: false,
    outDir: "out"
  },
  files: ["consumer.ts"]
}

/** Uses the public API the way docs/library.md shows it; each annotation pins a published type. */
const consumer = `
import { Effect, Layer, Stream } from "effect"
import {
  ConfigLoader,
  Engine,
  EventBus,
  ProcessManager,
  ProcessNotFound,
  type AppDefinition,
  type PmfxEvent,
  type ProcessStatus,
  type ProcessSummary
} from "pmfx"

export const listNames: Effect.Effect<ReadonlyArray<string>, never, ProcessManager> = Effect.gen(function* () {
  const manager = yield* ProcessManager
  const rows: ReadonlyArray<ProcessSummary> = yield* manager.list()
  return rows.map((row) => row.name)
})

export const stopOrSay = (target: string): Effect.Effect<string, never, ProcessManager> =>
  Effect.gen(function* () {
    const manager = yield* ProcessManager
    const rows = yield* manager.stop(target)
    const status: ProcessStatus | undefined = rows[0]?.status
    return status ?? "none"
  }).pipe(Effect.catchTag("PROCESS_NOT_FOUND", (error: ProcessNotFound) => Effect.succeed(error.details.suggestion)))

export const statusChanges: Stream.Stream<string, never, EventBus> = Stream.unwrapScoped(
  Effect.map(EventBus, (bus) =>
    bus.stream().pipe(
      Stream.filter((event: PmfxEvent) => event._tag === "ProcessStatus"),
      Stream.map((event) => event.name)
    )
  )
)

export const startFile = (file: string) =>
  Effect.gen(function* () {
    const loader = yield* ConfigLoader
    const manager = yield* ProcessManager
    const { apps } = yield* loader.loadFile(file, { environment: {} })
    const first: AppDefinition | undefined = apps[0]
    yield* manager.create(apps, { baseEnv: {} })
    return first?.name
  })

export const layer = Layer.merge(Engine.at("/tmp/pmfx-consumer-home"), ConfigLoader.Default)
export const program = startFile("ecosystem.json").pipe(Effect.provide(layer))

// A wrong use must not compile: with declarations missing or \`any\`, this directive is itself an error.
// @ts-expect-error list() takes no target
export const wrong = Effect.flatMap(ProcessManager, (manager) => manager.list("api"))

console.log([typeof Engine.at, typeof ConfigLoader.Default, typeof ProcessManager.Default].join(" "))
`

/**
 * The consumer project. It stays between runs, with tsc's incremental build info, as the type checks
 * of `npm test` keep theirs (scripts/test.mjs): a full check is ~20 s of CPU (Effect's declarations
 * are checked too), and a later run re-checks only the files whose text changed — the packed
 * declarations when the sources changed — with the same diagnostics as a full check. It lives
 * outside this checkout (one per checkout), so that nothing resolves from the checkout's own
 * node_modules: the consumer sees only the packed files and the dependencies linked below.
 */
const project = path.join(os.tmpdir(), `pmfx-consumer-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`)

describe("the packed package's types", () => {
  // ~20 s of CPU the first time: a generous bound for a loaded machine.
  it("compile a strict consumer against the public API and reject a wrong call", { timeout: 120_000 }, async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "pmfx-types-"))
    try {
      expect(fs.existsSync(path.join(root, "dist", "types", "index.d.ts"))).toBe(true)
      // --ignore-scripts: dist/ is built (the suite's global setup); `prepare` would rebuild it.
      const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], root)
      expect(packed.status, packed.output).toBe(0)
      // Only stdout is JSON: npm may print warnings (an unknown npmrc key, say) on stderr after it.
      const tarball = (
        JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as ReadonlyArray<{ filename: string }>
      )[0]!.filename
      const installed = path.join(project, "node_modules", "pmfx")
      // Only what this run packed. tsc writes out/consumer.js again only when consumer.ts changed:
      // without it, the build info goes too.
      fs.rmSync(installed, { recursive: true, force: true })
      if (!fs.existsSync(path.join(project, "out", "consumer.js")))
        fs.rmSync(path.join(project, "consumer.tsbuildinfo"), { force: true })
      fs.mkdirSync(installed, { recursive: true })
      expect(
        (await run("tar", ["-xzf", path.join(work, tarball), "-C", installed, "--strip-components=1"], work)).status
      ).toBe(0)
      for (const dependency of [...Object.keys(packageJson.dependencies), "@types/node", "typescript"]) {
        const link = path.join(project, "node_modules", dependency)
        fs.mkdirSync(path.dirname(link), { recursive: true })
        try {
          fs.unlinkSync(link)
        } catch {
          // No link yet.
        }
        fs.symlinkSync(fs.realpathSync(path.join(root, "node_modules", dependency)), link)
      }
      fs.writeFileSync(
        path.join(project, "package.json"),
        JSON.stringify({ name: "consumer", private: true, type: "module" })
      )
      fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
      fs.writeFileSync(path.join(project, "consumer.ts"), consumer)

      const compiled = await run(
        process.execPath,
        [
          path.join(project, "node_modules", "typescript", "bin", "tsc"),
          "-p",
          ".",
          "--incremental",
          "--tsBuildInfoFile",
          "consumer.tsbuildinfo"
        ],
        project
      )
      expect(compiled.output).toBe("")
      expect(compiled.status).toBe(0)
      // The declarations describe what the bundle exports.
      const ran = await run(process.execPath, [path.join(project, "out", "consumer.js")], project)
      expect(ran.output).toBe("function object object\n")
      expect(ran.status).toBe(0)
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })
})
