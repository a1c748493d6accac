/**
 * Vitest global setup: rebuilds `dist/` from the current sources before the suite, so the CLI
 * tests always drive the code under test (`npm install` builds it too, but sources may have
 * changed since). The build is skipped when dist/ was built from exactly these sources by this
 * Node (scripts/buildFingerprint.mjs): after `npm ci` it would only redo the same ~10 s of CPU.
 * `PMFX_TEST_REBUILD=1` builds anyway.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"

export default async function setup(): Promise<void> {
  const { buildFingerprint, FINGERPRINT_FILE } = (await import(
    pathToFileURL(path.resolve("scripts/buildFingerprint.mjs")).href
  )) as {
    readonly buildFingerprint: () => string
    readonly FINGERPRINT_FILE: string
  }
  const built = fs.existsSync(FINGERPRINT_FILE) ? fs.readFileSync(FINGERPRINT_FILE, "utf8").trim() : ""
  if (process.env.PMFX_TEST_REBUILD !== "1" && built === buildFingerprint()) return
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
