// Builds dist/ (run by `npm install` through `prepare`, by `npm run build`, and before the tests):
//   pmfx.cjs        the executable: a small launcher that starts pmfx-main.cjs from V8's code cache
//   pmfx-main.cjs   the CLI bundle (an unbundled Effect CLI takes ~0.8 s to start, NOTES.md)
//   daemon.cjs      the daemon: engine and HTTP server, kept out of the everyday CLI path
//   index.cjs       the library, with its dependencies external
// Everything is built into a scratch folder and renamed into dist/ file by file, so a command
// running meanwhile (tests rebuild dist/) never reads a half-written bundle.
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

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

mkdirSync("dist", { recursive: true })
const staging = mkdtempSync(path.join("dist", ".build-"))
const out = (name) => path.join(staging, name)
try {
  await build({ ...common, entryPoints: ["src/bin.ts"], outfile: out("pmfx-main.cjs") })
  await build({ ...common, entryPoints: ["src/launcher.ts"], outfile: out("pmfx.cjs"), banner: { js: "#!/usr/bin/env node" } })
  chmodSync(out("pmfx.cjs"), 0o755)
  await build({ ...common, entryPoints: ["src/daemonMain.ts"], outfile: out("daemon.cjs") })
  // The library keeps its dependencies external, so an embedding program shares one copy of
  // Effect with pmfx (two copies would not recognise each other's services).
  const packageJson = JSON.parse(readFileSync("package.json", "utf8"))
  await build({ ...common, minify: false, entryPoints: ["src/index.ts"], outfile: out("index.cjs"), external: Object.keys(packageJson.dependencies) })

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
  // The bundle before the launcher and the cache that goes with it, so no reader mixes versions.
  const order = (name) => (name.startsWith("pmfx-main.cjs") ? 0 : name.startsWith("pmfx.cjs") ? 2 : 1)
  for (const name of readdirSync(staging).sort((a, b) => order(a) - order(b))) renameSync(out(name), path.join("dist", name))
} finally {
  rmSync(staging, { recursive: true, force: true })
}
