/**
 * Vitest global setup: rebuilds `dist/` from the current sources before the suite, so the CLI
 * tests always drive the code under test (`npm install` builds it too, but sources may have
 * changed since).
 */
import { execFileSync } from "node:child_process"

export default function setup(): void {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" })
}
