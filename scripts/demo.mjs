// `npm run demo`: the main job as far as pmfx goes today. The process engine and the daemon are
// the next milestones; until they land, the demo checks and resolves the example ecosystem in all
// its formats — what `pmfx start` will run.
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const pmfx = path.join(root, "dist", "pmfx.cjs")

const run = (args) => {
  console.log(`\n$ pmfx ${args.map((a) => path.relative(root, a) || a).join(" ")}`)
  const result = spawnSync(process.execPath, [pmfx, ...args], { stdio: "inherit", cwd: root })
  if (result.status !== 0) {
    console.error(`pmfx exited with ${result.status}`)
    process.exit(result.status ?? 1)
  }
}

for (const file of ["ecosystem.json", "ecosystem.yaml", "ecosystem.toml", "ecosystem.config.mjs"]) {
  run(["validate", path.join(root, "examples", file)])
}
run(["validate", "--env", "production", path.join(root, "examples", "pm2", "ecosystem.config.js")])
run(["show", path.join(root, "examples", "ecosystem.json")])
