// Builds dist/ (run by `npm install` through `prepare`, by `npm run build`, and before the tests):
//   pmfx            the executable (a shell script): the CLI from its startup snapshot, else pmfx.cjs
//   pmfx-main.blob  the CLI's startup snapshot, made by this machine's Node (+ .node: which Node)
//   pmfx.cjs        the Node launcher: starts pmfx-main.cjs from V8's code cache, or the daemon
//   pmfx-main.cjs   the CLI bundle (an unbundled Effect CLI takes ~0.8 s to start)
//   importModule.cjs  `import()` for a CLI started from its snapshot (ES module ecosystem files)
//   daemon.cjs      the daemon: engine and HTTP server, kept out of the everyday CLI path
//   runtime.cjs     `pmfx-runtime`, the container entry point: the daemon's graph in the foreground
//   cluster-primary.cjs  the node:cluster primary the daemon runs for each cluster-mode app
//   vendor/         packages the bundles require on first use (configuration formats, watch mode, …)
//   index.cjs       the library, with its dependencies external
//   types/          the library's declaration files (tsc, tsconfig.build.json), for package.json "types"
// Everything is built into a scratch folder and renamed into dist/ file by file, so a command
// running meanwhile (tests rebuild dist/) never reads a half-written bundle.
import { build } from "esbuild"
import { execFileSync, spawn, spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync
} from "node:fs"
import * as http from "node:http"
import { createRequire, isBuiltin } from "node:module"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { buildFingerprint, FINGERPRINT_FILE } from "./buildFingerprint.mjs"

const common = {
  bundle: true,
  platform: "node",
  target: "node20",
  format: "cjs",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "warning"
}

/**
 * The daemon's code cache (dist/daemon.cjs.cache): a daemon in a scratch home, under the Node flags
 * the daemon always runs with (V8 rejects a cache made under other flags), supervises one app
 * through start, logs, restart and stop, and writes the cache as it exits — so that what a daemon
 * compiles in its first minutes is in it. The CLI's own cache is rewritten by the `start` of an
 * ecosystem file there: loading a file, the request to the daemon and the table it prints are what
 * everyday commands run, and functions missing from the cache are compiled at every start (the
 * cache `validate` makes, without a daemon, stays when this run fails). A failure only costs the
 * cache (a warning).
 */
const makeDaemonCodeCache = async () => {
  const { daemonArguments } = createRequire(import.meta.url)(path.resolve(out("daemon.cjs")))
  const home = mkdtempSync(path.join(tmpdir(), "pmfx-build-"))
  const env = { PATH: process.env.PATH, PMFX_HOME: home, NO_COLOR: "1" }
  const cli = (args, extraEnv = {}) =>
    spawnSync(process.execPath, [out("pmfx.cjs"), ...args], {
      env: { ...env, ...extraEnv },
      stdio: "ignore",
      timeout: 15_000
    }).status
  // Asked over the socket directly: `pmfx ping` would start a second daemon of its own.
  const answers = () =>
    new Promise((resolve) => {
      const request = http.get(
        { socketPath: path.join(home, "pmfx.sock"), path: "/health", timeout: 1_000 },
        (response) => {
          response.resume()
          resolve(response.statusCode === 200)
        }
      )
      request.on("error", () => resolve(false))
      request.on("timeout", () => request.destroy())
    })
  const daemon = spawn(process.execPath, daemonArguments(out("pmfx.cjs")), {
    env: { ...env, PMFX_WRITE_CODE_CACHE: "1" },
    stdio: "ignore"
  })
  const exited = new Promise((resolve) => daemon.once("exit", resolve))
  // However the run goes, it ends within a minute: a stuck daemon is killed (then no cache).
  const watchdog = setTimeout(() => daemon.kill("SIGKILL"), 60_000)
  try {
    const deadline = Date.now() + 15_000
    while (!(await answers())) {
      if (Date.now() > deadline || daemon.exitCode !== null) throw new Error("the daemon did not answer")
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    // The app ends itself: should the daemon be killed below, it does not outlive the build.
    writeFileSync(
      path.join(home, "warm.js"),
      "console.log('up'); console.error('err'); setInterval(() => console.log('tick'), 50); setTimeout(() => process.exit(0), 30_000)\n"
    )
    writeFileSync(path.join(home, "warm.config.json"), '{ "apps": [{ "name": "warm", "script": "./warm.js" }] }\n')
    if (cli(["start", path.join(home, "warm.config.json")], { PMFX_WRITE_CODE_CACHE: "1" }) !== 0)
      throw new Error("pmfx start warm.config.json failed")
    for (const args of [["list"], ["logs", "warm", "--lines", "5"], ["restart", "warm"], ["stop", "warm"], ["kill"]]) {
      if (cli(args) !== 0) throw new Error(`pmfx ${args.join(" ")} failed`)
    }
    await exited
    if (!existsSync(out("daemon.cjs.cache"))) throw new Error("the daemon wrote no cache")
  } finally {
    clearTimeout(watchdog)
    if (daemon.exitCode === null && daemon.signalCode === null) {
      daemon.kill("SIGKILL")
      await exited
    }
    rmSync(home, { recursive: true, force: true })
  }
}

/**
 * The CLI's startup snapshot (dist/pmfx-main.blob; src/cliSnapshot.ts, docs/architecture.md §10):
 * `node --build-snapshot` evaluates the snapshot bundle, runs `pmfx validate` on the example file
 * (so that what every command runs is compiled in it), and saves the heap. It is tried once before
 * it is kept: started from it, `pmfx --version` must print this version. Beside it,
 * pmfx-main.blob.node names the Node that made it — the only one that can start from it — for
 * `dist/pmfx` to compare with the Node it finds. A failure only costs the snapshot (a warning):
 * `dist/pmfx` then starts the CLI through the launcher, as without one.
 */
const makeCliSnapshot = (version) => {
  const blob = out("pmfx-main.blob")
  const home = mkdtempSync(path.join(tmpdir(), "pmfx-build-"))
  const env = { PATH: process.env.PATH, PMFX_HOME: home, HOME: home, NO_COLOR: "1" }
  try {
    execFileSync(
      process.execPath,
      ["--no-warnings", "--snapshot-blob", blob, "--build-snapshot", out("pmfx-snapshot.cjs")],
      {
        env: { ...env, PMFX_SNAPSHOT_WARM_UP: JSON.stringify(["validate", path.resolve("examples/ecosystem.json")]) },
        stdio: "ignore",
        timeout: 60_000
      }
    )
    const tried = spawnSync(process.execPath, ["--snapshot-blob", blob, out("pmfx.cjs"), "--version"], {
      env,
      encoding: "utf8",
      timeout: 15_000
    })
    if (tried.status !== 0 || tried.stdout.trim() !== version)
      throw new Error(
        `started from it, pmfx --version ${tried.status === 0 ? `printed ${JSON.stringify(tried.stdout.trim())}` : `failed (${tried.signal ?? `exit ${tried.status}`}): ${tried.stderr.trim().split("\n").slice(0, 12).join(" | ")}`}`
      )
    writeFileSync(out("pmfx-main.blob.node"), `${realpathSync(process.execPath)}\n`)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}

/**
 * `import { Effect, Schema } from "effect"` in pmfx's own sources, bundled as
 * `import * as Effect from "effect/Effect"` (one module per name; every name pmfx imports from the
 * barrel is a module). Through the barrel esbuild keeps and evaluates whole Effect modules the
 * code never uses (fast-check among them): the daemon bundle is 1.09 MB instead of 0.82 MB and
 * its idle heap 2.3 MB bigger (docs/decisions.md). Type-only imports are dropped, as esbuild
 * would drop them anyway. The sources keep the idiomatic barrel imports.
 */
const effectModules = {
  name: "effect-module-imports",
  setup(builder) {
    const sources = new RegExp(`^${path.resolve("src").replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/.*\\.ts$`)
    builder.onLoad({ filter: sources }, (args) => {
      const text = readFileSync(args.path, "utf8").replace(
        /import\s+(type\s+)?\{([^}]*)\}\s+from\s+"effect"/g,
        (_, typeOnly, names) => {
          if (typeOnly) return ""
          return names
            .split(",")
            .map((name) => name.trim())
            .filter((name) => name !== "" && !name.startsWith("type "))
            .map((name) => {
              const [module, local = module] = name.split(/\s+as\s+/)
              if (!existsSync(path.join("node_modules", "effect", "dist", "esm", `${module}.js`))) {
                throw new Error(`${args.path}: "${module}" from "effect" is not a module of its own`)
              }
              return `import * as ${local} from "effect/${module}"`
            })
            .join(";")
        }
      )
      return { contents: text, loader: "ts" }
    })
  }
}

/**
 * A CommonJS module of getters standing for the module `required` (a JS string literal) whose
 * exports are those of `real`: the first read of an export requires it. `defaultBody` is the body
 * of the `default` getter. Used for LAZY_PACKAGES and LAZY_BUILTINS.
 */
const getterModule = (required, real, defaultBody) =>
  [
    "let real",
    `const load = () => (real ??= require(${required}))`,
    "module.exports = {",
    "  __esModule: true,",
    `  get default() { ${defaultBody} },`,
    ...Object.keys(real)
      .filter((name) => name !== "default" && name !== "__esModule")
      .map((name) => `  get ${JSON.stringify(name)}() { return load()[${JSON.stringify(name)}] },`),
    "}"
  ].join("\n")

/**
 * Packages an idle daemon (and most CLI commands) never evaluate, each bundled into a file of its
 * own, `dist/vendor/<package>.cjs`, and required from there on first use. Inside a bundle their
 * code would cost even unevaluated: V8 keeps a script's whole source in the heap (for lazy
 * compilation), and these packages are ~0.45 MB of the daemon's 1.16 MB (docs/benchmarks.md,
 * "The daemon's memory, fifth pass").
 * - LAZY_PACKAGES are imported statically by pmfx's sources: `ws` (the WebSocket server, made on the
 *   first upgrade), `mime` (file responses) and `re2js` (a `grep`/`ready` pattern: its Unicode
 *   tables), or by a dependency: `yaml`, which @effect/cli and the exports (src/export/) import
 *   statically, so that as a deferred package every CLI run required and compiled its vendor file
 *   (8–16 ms of CPU a command; docs/benchmarks.md, "The test suite, sixth pass"). Each import is
 *   bundled as a small CommonJS module of getters; the first read of an export requires the real
 *   package. esbuild reads a CommonJS module's exports at each use
 *   (`import_ws.WebSocketServer`), so an import alone loads nothing. The export names come from
 *   the package itself at build time; a name the code reads that the package lacks stays undefined,
 *   as it would without the shim. Import their named exports (`import { WebSocket } from "ws"`): in
 *   pmfx's sources (an ES module package) a default import is the module of getters itself, not the
 *   package's `module.exports` — `new` on it fails.
 * - DEFERRED_PACKAGES are already imported with `import()` where they are used (configuration
 *   formats, watch mode): their import resolves to a one-line module requiring the vendor file.
 */
const LAZY_PACKAGES = ["ws", "mime", "re2js", "yaml"]
const DEFERRED_PACKAGES = ["json5", "smol-toml", "chokidar", "picomatch"]
const VENDOR_PACKAGES = [...LAZY_PACKAGES, ...DEFERRED_PACKAGES]
const vendorFile = (name) => `./vendor/${name}.cjs`
const topRequire = createRequire(path.resolve("package.json"))
const vendorPackages = {
  name: "vendor-packages",
  setup(builder) {
    const filter = new RegExp(`^(${VENDOR_PACKAGES.join("|")})$`)
    builder.onResolve({ filter }, (args) => {
      // Another version nested under a dependency is bundled where it is, as usual.
      const resolvesTo = createRequire(path.join(args.resolveDir, "index.js"))
      if (resolvesTo.resolve(args.path) !== topRequire.resolve(args.path)) return undefined
      const lazy = LAZY_PACKAGES.includes(args.path)
      const defaultImport = new RegExp(`import\\s+[\\w$]+\\s*(,[^;]*)?from\\s*"${args.path}"`)
      if (
        lazy &&
        args.importer.startsWith(path.resolve("src")) &&
        defaultImport.test(readFileSync(args.importer, "utf8"))
      )
        return {
          errors: [
            { text: `import the named exports of "${args.path}" (it is loaded on first use, see LAZY_PACKAGES)` }
          ]
        }
      return { path: args.path, namespace: "vendor-package", pluginData: { resolveDir: args.resolveDir, lazy } }
    })
    // The vendor file itself, required relative to the bundle (both live in dist/).
    builder.onResolve({ filter: /^\.\/vendor\//, namespace: "vendor-package" }, (args) => ({
      path: args.path,
      external: true
    }))
    builder.onLoad({ filter: /.*/, namespace: "vendor-package" }, (args) => {
      const { resolveDir, lazy } = args.pluginData
      const file = JSON.stringify(vendorFile(args.path))
      if (!lazy) return { contents: `module.exports = require(${file})`, loader: "js", resolveDir }
      // The package the bundle will load (onResolve let through only the top-level copy).
      const contents = getterModule(
        file,
        topRequire(args.path),
        "const m = load(); return m && m.__esModule ? m.default : m"
      )
      return { contents, loader: "js", resolveDir }
    })
  }
}

/** Bundles each of VENDOR_PACKAGES into `folder/<package>.cjs` (its own dependencies inside). */
const buildVendorPackages = (folder) =>
  Promise.all(
    VENDOR_PACKAGES.map((name) =>
      build({
        ...common,
        stdin: {
          contents: `module.exports = require(${JSON.stringify(name)})`,
          resolveDir: process.cwd(),
          loader: "js"
        },
        outfile: path.join(folder, `${name}.cjs`)
      })
    )
  )

/**
 * Node's built-in modules, imported through one shared module each. esbuild bundles
 * `import * as fs from "node:fs"` as a fresh copy of `fs`'s exports per importing module (an
 * object with a getter per export): 32 copies of `fs`, 30 of `path` and more in the daemon, ~4,700
 * getters, ~0.5 MB of heap (docs/benchmarks.md, "The daemon's memory, fifth pass"). Each import
 * statement of a built-in resolves instead to a module that re-exports it once; `require` calls
 * (CommonJS packages) stay as they are.
 *
 * LAZY_BUILTINS are loaded on first use, through getters as for LAZY_PACKAGES: an idle daemon never
 * calls them (`https`: an https webhook or health probe, and it loads `tls`; `zlib`: a rotated log
 * compressed or read, the dashboard's first asset; `readline`: the platform's terminal, a CLI
 * prompt; `crypto`: an API key compared, a long name hashed — spawns take their random bytes from
 * src/shared/randomHex.ts). Loaded, they cost a daemon ~1.5 MB resident (docs/benchmarks.md, "The
 * daemon's memory, sixth pass").
 */
const LAZY_BUILTINS = ["https", "zlib", "readline", "crypto"]
const sharedBuiltinsWith = (lazyBuiltins) => ({
  name: "shared-builtins",
  setup(builder) {
    builder.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined
      if (args.namespace === "shared-builtin") return { path: args.path, external: true }
      if (args.kind !== "import-statement") return undefined
      return { path: args.path.replace(/^node:/, ""), namespace: "shared-builtin" }
    })
    builder.onLoad({ filter: /.*/, namespace: "shared-builtin" }, (args) => ({
      contents: lazyBuiltins.includes(args.path)
        ? getterModule(JSON.stringify(`node:${args.path}`), topRequire(`node:${args.path}`), "return load()")
        : `export * from "node:${args.path}"; export default require("node:${args.path}")`,
      loader: "js"
    }))
  }
})
const sharedBuiltins = sharedBuiltinsWith(LAZY_BUILTINS)

/**
 * For the CLI's startup snapshot (makeCliSnapshot), whose heap must not depend on the build:
 * - `http` is loaded on first use too: Node 20's snapshot builder cannot save it once loaded (the
 *   CLI's first request loads it, after the start).
 * - Effect's clock (`effect/internal/clock.js`) anchors its nanosecond clock (`Clock.currentTimeNanos`,
 *   span times) to the monotonic clock once, when the module is evaluated: in the snapshot, the
 *   build's moment, wrong after a reboot. Here the anchor is taken at its first use after the start.
 *   The build fails if another Effect version words the module differently.
 */
const snapshotBuiltins = sharedBuiltinsWith([...LAZY_BUILTINS, "http"])
const EAGER_CLOCK_ANCHOR = `  const origin = /*#__PURE__*/performanceNowNanos() - /*#__PURE__*/processHrtime.bigint();
  return () => origin + processHrtime.bigint();`
const LAZY_CLOCK_ANCHOR = `  let origin;
  if (require("node:v8").startupSnapshot.isBuildingSnapshot())
    require("node:v8").startupSnapshot.addDeserializeCallback(() => { origin = undefined });
  return () => (origin ??= BigInt(Date.now()) * BigInt(1000000) - processHrtime.bigint()) + processHrtime.bigint();`
const snapshotClock = {
  name: "snapshot-clock",
  setup(builder) {
    builder.onLoad({ filter: /[\\/]effect[\\/]dist[\\/]esm[\\/]internal[\\/]clock\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
      if (!text.includes(EAGER_CLOCK_ANCHOR))
        throw new Error(`${args.path}: the clock's anchor is not where the CLI's snapshot build expects it`)
      return { contents: text.replace(EAGER_CLOCK_ANCHOR, LAZY_CLOCK_ANCHOR), loader: "js" }
    })
  }
}

/** The newest modification time under `folder` (recursively), in ms. */
const newestMtime = (folder) =>
  Math.max(
    0,
    ...readdirSync(folder, { withFileTypes: true }).map((entry) => {
      const full = path.join(folder, entry.name)
      return entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs
    })
  )

/**
 * The library's declaration files, emitted by tsc from src/index.ts into `folder` (tsconfig.build.json).
 * They describe dist/index.cjs, a CommonJS module: a package.json beside them says so, so that a
 * consumer under `moduleResolution: node16` reads them as CommonJS declarations (whose relative
 * imports need no extension). Started at once and awaited at the end, it runs beside the bundling
 * and the code caches; skipped when dist/types is newer than every source (tsc takes ~15 s).
 */
const emitTypes = (folder) => {
  const current = path.join("dist", "types", "index.d.ts")
  const sources = Math.max(
    newestMtime("src"),
    statSync("tsconfig.json").mtimeMs,
    statSync("tsconfig.build.json").mtimeMs
  )
  if (existsSync(current) && statSync(current).mtimeMs > sources)
    return { done: Promise.resolve(false), stop: () => {} }
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  const child = spawn(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", folder], {
    stdio: ["ignore", "inherit", "inherit"]
  })
  const done = new Promise((resolve, reject) => {
    child.once("error", reject)
    child.once("exit", (code, signal) => {
      if (code !== 0)
        return reject(
          new Error(
            `tsc -p tsconfig.build.json failed (${signal ?? `exit ${code}`}): the library's declaration files were not emitted`
          )
        )
      writeFileSync(path.join(folder, "package.json"), `${JSON.stringify({ type: "commonjs" })}\n`)
      resolve(true)
    })
  })
  // Awaited at the end; a build that fails before then stops tsc instead (no stray output).
  done.catch(() => {})
  return { done, stop: () => child.exitCode === null && child.signalCode === null && child.kill() }
}

mkdirSync("dist", { recursive: true })
/**
 * The web dashboard (src/ui, docs/dashboard.md): one script and one stylesheet for browsers, named
 * by their content's hash (the daemon caches them for a year), and index.html naming them. No
 * inline script or style, so the daemon's Content-Security-Policy can forbid both.
 */
const buildDashboard = async (folder) => {
  mkdirSync(folder, { recursive: true })
  const result = await build({
    entryPoints: ["src/ui/main.ts"],
    bundle: true,
    platform: "browser",
    target: ["chrome100", "firefox100", "safari15"],
    format: "esm",
    minify: true,
    legalComments: "none",
    logLevel: "warning",
    outdir: folder,
    entryNames: "app-[hash]",
    metafile: true
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
  const script = outputs.find((name) => name.endsWith(".js"))
  const style = outputs.find((name) => name.endsWith(".css"))
  if (script === undefined || style === undefined)
    throw new Error("the dashboard build wrote no script or no stylesheet")
  const page = readFileSync("src/ui/index.html", "utf8").replace("__JS__", script).replace("__CSS__", style)
  writeFileSync(path.join(folder, "index.html"), page)
}

// Taken before anything is read, so a source edited during the build leaves a fingerprint that
// does not match it (and the next test run builds again). Removed first: a build that fails half-way
// leaves none.
const fingerprint = buildFingerprint()
rmSync(FINGERPRINT_FILE, { force: true })
const staging = mkdtempSync(path.join("dist", ".build-"))
const out = (name) => path.join(staging, name)
const typesStaging = mkdtempSync(path.join("dist", ".types-"))
const types = emitTypes(typesStaging)
try {
  await build({
    ...common,
    entryPoints: ["src/bin.ts"],
    outfile: out("pmfx-main.cjs"),
    external: ["./importModule.cjs"],
    plugins: [effectModules, vendorPackages, sharedBuiltins]
  })
  await build({
    ...common,
    entryPoints: ["src/launcher.ts"],
    outfile: out("pmfx.cjs"),
    // For LAZY_BUILTINS: the launcher runs in the daemon too, and `crypto` only hashes a long home.
    plugins: [sharedBuiltins],
    banner: { js: "#!/usr/bin/env node" }
  })
  chmodSync(out("pmfx.cjs"), 0o755)
  // The executable (package.json "bin"): starts the CLI from its snapshot, or through pmfx.cjs.
  writeFileSync(out("pmfx"), readFileSync("src/pmfx.sh"))
  chmodSync(out("pmfx"), 0o755)
  // The CLI's startup snapshot's bundle (makeCliSnapshot; not kept in dist/), and the module through
  // which a CLI started from it imports ES modules (src/cliSnapshot.ts).
  await build({
    ...common,
    sourcemap: false,
    entryPoints: ["src/cliSnapshot.ts"],
    outfile: out("pmfx-snapshot.cjs"),
    external: ["./importModule.cjs"],
    plugins: [snapshotClock, effectModules, vendorPackages, snapshotBuiltins]
  })
  writeFileSync(out("importModule.cjs"), "module.exports = (specifier) => import(specifier)\n")
  await build({
    ...common,
    entryPoints: ["src/daemonMain.ts"],
    outfile: out("daemon.cjs"),
    plugins: [effectModules, vendorPackages, sharedBuiltins]
  })
  // The container runtime (docs/containers.md). koffi stays external: it loads a native binary.
  await build({
    ...common,
    entryPoints: ["src/runtimeMain.ts"],
    outfile: out("runtime.cjs"),
    plugins: [effectModules, vendorPackages, sharedBuiltins],
    external: ["koffi"],
    banner: { js: "#!/usr/bin/env node" }
  })
  chmodSync(out("runtime.cjs"), 0o755)
  // The primary of cluster-mode apps (src/cluster/primary.ts): plain Node, run beside the workers.
  await build({ ...common, entryPoints: ["src/cluster/primary.ts"], outfile: out("cluster-primary.cjs") })
  // The library keeps its dependencies external, so an embedding program shares one copy of
  // Effect with pmfx (two copies would not recognise each other's services).
  const packageJson = JSON.parse(readFileSync("package.json", "utf8"))
  await build({
    ...common,
    minify: false,
    entryPoints: ["src/index.ts"],
    outfile: out("index.cjs"),
    external: Object.keys(packageJson.dependencies)
  })

  await buildDashboard(path.join(staging, "ui"))
  await buildVendorPackages(path.join(staging, "vendor"))

  // The code cache for this machine's Node, made by a command that needs no daemon.
  const scratchHome = mkdtempSync(path.join(tmpdir(), "pmfx-build-"))
  try {
    execFileSync(process.execPath, [out("pmfx.cjs"), "validate", "examples/ecosystem.json"], {
      env: { ...process.env, PMFX_WRITE_CODE_CACHE: "1", PMFX_HOME: scratchHome, NO_COLOR: "1" },
      stdio: "ignore"
    })
  } catch (error) {
    console.warn(`pmfx build: no code cache (${error.message}); the CLI still works, it starts a little slower`)
  } finally {
    rmSync(scratchHome, { recursive: true, force: true })
  }
  try {
    await makeDaemonCodeCache()
  } catch (error) {
    console.warn(
      `pmfx build: no daemon code cache (${error.message}); the daemon still works, it starts a little slower and uses more memory`
    )
  }
  try {
    makeCliSnapshot(packageJson.version)
  } catch (error) {
    rmSync(out("pmfx-main.blob"), { force: true })
    console.warn(
      `pmfx build: no startup snapshot for the CLI (${error.message.split("\n")[0]}); the CLI still works, each command starts ~25-40 ms slower`
    )
  }
  rmSync(out("pmfx-snapshot.cjs"), { force: true })
  // A snapshot of an older build must not outlive it: dist/pmfx would start that build's CLI.
  if (!existsSync(out("pmfx-main.blob.node"))) {
    rmSync(path.join("dist", "pmfx-main.blob.node"), { force: true })
    rmSync(path.join("dist", "pmfx-main.blob"), { force: true })
  }
  // The vendor files before the bundles that require them, the bundle before the launcher and the
  // cache that goes with it, so no reader mixes versions; a snapshot before the file that vouches
  // for it, and both before the executable that reads them.
  mkdirSync(path.join("dist", "vendor"), { recursive: true })
  for (const name of readdirSync(out("vendor"))) renameSync(out(`vendor/${name}`), path.join("dist", "vendor", name))
  rmSync(out("vendor"), { recursive: true })
  const order = (name) =>
    name.startsWith("pmfx-main.cjs")
      ? 0
      : name === "pmfx-main.blob.node"
        ? 2
        : name.startsWith("pmfx.cjs")
          ? 3
          : name === "pmfx"
            ? 4
            : 1
  for (const name of readdirSync(staging).sort((a, b) => order(a) - order(b))) {
    // A folder (the dashboard's) cannot be renamed over a non-empty one: the old one goes first.
    if (name === "ui") rmSync(path.join("dist", "ui"), { recursive: true, force: true })
    renameSync(out(name), path.join("dist", name))
  }
  if (await types.done) {
    rmSync(path.join("dist", "types"), { recursive: true, force: true })
    renameSync(typesStaging, path.join("dist", "types"))
  }
  writeFileSync(FINGERPRINT_FILE, `${fingerprint}\n`)
} finally {
  rmSync(staging, { recursive: true, force: true })
  types.stop()
  rmSync(typesStaging, { recursive: true, force: true })
}
