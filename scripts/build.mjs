// Bundles the CLI into one CommonJS file (dist/pmfx.cjs): an unbundled Effect CLI takes ~0.8 s to
// start, a minified bundle ~0.13 s (NOTES.md). Run by `npm install` (prepare) and `npm run build`.
import { build } from "esbuild"
import { chmodSync, readFileSync } from "node:fs"

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

await build({
  ...common,
  entryPoints: ["src/bin.ts"],
  outfile: "dist/pmfx.cjs",
  banner: { js: "#!/usr/bin/env node" }
})
chmodSync("dist/pmfx.cjs", 0o755)

await build({ ...common, entryPoints: ["src/daemonMain.ts"], outfile: "dist/daemon.cjs" })

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
