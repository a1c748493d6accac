// Moves a TypeScript module and rewrites every relative import of it (src/, test/, bench/, scripts/):
//   node scripts/move-module.mjs src/daemon/Paths.ts src/shared/Paths.ts
// Uses `git mv`; safe to run again after a merge brought new importers of the old path (with the
// old path already gone, pass --rewrite-only to fix the imports alone).
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import * as path from "node:path"

const args = process.argv.slice(2)
const rewriteOnly = args.includes("--rewrite-only")
const [from, to] = args.filter((a) => !a.startsWith("--")).map((p) => path.resolve(p))
if (from === undefined || to === undefined)
  throw new Error("usage: node scripts/move-module.mjs <from.ts> <to.ts> [--rewrite-only]")
if (!rewriteOnly) {
  execFileSync("mkdir", ["-p", path.dirname(to)])
  execFileSync("git", ["mv", from, to], { stdio: "inherit" })
}
const strip = (p) => p.replace(/\.(ts|tsx|js|mjs|cjs)$/, "")
const files = []
const walk = (dir) => {
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist") continue
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) walk(full)
    else if (/\.(ts|tsx|mts|cts|mjs)$/.test(name)) files.push(full)
  }
}
for (const root of ["src", "test", "bench", "scripts"]) walk(path.resolve(root))
const specifier = (fromFile, target) => {
  let rel = path.relative(path.dirname(fromFile), strip(target))
  if (!rel.startsWith(".")) rel = `./${rel}`
  return rel
}
let changed = 0
for (const file of files) {
  const text = readFileSync(file, "utf8")
  // The moved file's own relative imports point from its new folder.
  const base = file === to && !rewriteOnly ? path.dirname(from) : path.dirname(file)
  const next = text.replace(/((?:from|import)\s*\(?\s*)(["'])(\.{1,2}\/[^"']+)\2/g, (all, head, quote, spec) => {
    const resolved = path.resolve(base, spec)
    if (strip(resolved) === strip(from)) return `${head}${quote}${specifier(file, to)}${quote}`
    if (file === to && !rewriteOnly) return `${head}${quote}${specifier(file, resolved)}${quote}`
    return all
  })
  if (next !== text) {
    writeFileSync(file, next)
    changed++
  }
}
console.log(`${changed} files rewritten`)
