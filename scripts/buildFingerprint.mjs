// The fingerprint of what dist/ is built from: every file under src/, the build script and the
// package, TypeScript and example files it reads, and the Node that made the code caches. The build
// (scripts/build.mjs) writes it to dist/.build-fingerprint once dist/ is complete; the tests' global
// setup (test/support/buildBundle.ts) rebuilds only when it differs, so `npm ci && npm test` builds
// once instead of twice, and a run after any source edit still drives the edited code.
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"

export const FINGERPRINT_FILE = path.join("dist", ".build-fingerprint")

const INPUTS = [
  "scripts/build.mjs",
  "scripts/buildFingerprint.mjs",
  "package.json",
  "package-lock.json",
  "tsconfig.json",
  "tsconfig.build.json",
  "examples/ecosystem.json"
]

/** Every file under `folder`, sorted, as paths relative to the repository. */
const filesUnder = (folder) =>
  readdirSync(folder, { withFileTypes: true })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((entry) => {
      const full = path.join(folder, entry.name)
      return entry.isDirectory() ? filesUnder(full) : [full]
    })

/** A hash of the names and contents of the build's inputs, and of the Node version. */
export const buildFingerprint = () => {
  const hash = createHash("sha256")
  hash.update(`node ${process.version} ${process.execPath}\n`)
  for (const file of [...INPUTS.filter((name) => existsSync(name)), ...filesUnder("src")]) {
    hash.update(`${file}\n`)
    hash.update(readFileSync(file))
    hash.update("\n")
  }
  return hash.digest("hex")
}
