// Bundles the CLI into one CommonJS file (dist/pmfx.cjs): an unbundled Effect CLI takes ~0.8 s to
// start, a minified bundle ~0.13 s (NOTES.md). Run by `npm install` (prepare) and `npm run build`.
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
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

await build({ ...common, entryPoints: ["src/bin.ts"], outfile: "dist/pmfx-main.cjs" })
// The executable is a small launcher that starts the CLI bundle from V8's code cache.
await build({ ...common, entryPoints: ["src/launcher.ts"], outfile: "dist/pmfx.cjs", banner: { js: "#!/usr/bin/env node" } })
chmodSync("dist/pmfx.cjs", 0o755)

await build({ ...common, entryPoints: ["src/daemonMain.ts"], outfile: "dist/daemon.cjs" })

// Make the code cache for this machine's Node by running a command that needs no daemon.
const scratch = mkdtempSync(path.join(tmpdir(), "pmfx-build-"))
try {
  execFileSync(process.execPath, ["dist/pmfx.cjs", "validate", "examples/ecosystem.json"], {
    env: { ...process.env, PMFX_WRITE_CODE_CACHE: "1", PMFX_HOME: scratch, NO_COLOR: "1" },
    stdio: "ignore"
  })
} catch (error) {
  console.warn(`pmfx build: no code cache (${error.message}); the CLI still works, it starts a little slower`)
} finally {
  rmSync(scratch, { recursive: true, force: true })
}

// The library keeps its dependencies external, so an embedding program shares one copy of Effect
// with pmfx (two copies would not recognise each other's services).
const packageJson = JSON.parse(readFileSync("package.json", "utf8"))
await build({
  ...common,
  minify: false,
  entryPoints: ["src/index.ts"],
  outfile: "dist/index.cjs",
  external: Object.keys(packageJson.dependencies)
})
