// `npm test`: the type checks (tsc for the project, tsc for the dashboard in src/ui) and the
// suite (`vitest run`, with any arguments given to `npm test -- ...`), run at the same time. The
// suite spends much of its time waiting on the processes it starts, so on two cores the ~28 s of
// tsc CPU fits into CPU the suite leaves idle, instead of coming first. The checks run at the
// lowest priority (nice 19): at the same priority they took CPU from the suite's daemons and CLIs
// while it was busy, which stretched the suite by about as much as they cost. The checks are
// incremental (their build info is kept in node_modules/.cache/pmfx-tsc/): a second run re-checks
// only what changed. Each check's output is printed when it ends, after a line naming it; the
// command fails if any of the three fails.
import { spawn } from "node:child_process"
import { mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { constants, setPriority } from "node:os"
import * as path from "node:path"

const require = createRequire(import.meta.url)
const tsc = require.resolve("typescript/bin/tsc")
const vitest = path.join(path.dirname(require.resolve("vitest/package.json")), "vitest.mjs")
const cache = path.join("node_modules", ".cache", "pmfx-tsc")
mkdirSync(cache, { recursive: true })

/** Runs a type check with its output held until it ends; resolves its exit code. */
const check = (name, args) =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, ...args], { stdio: ["ignore", "pipe", "pipe"] })
    // (Without a pid the spawn failed: setPriority(undefined) would lower this process instead.)
    if (child.pid !== undefined)
      try {
        setPriority(child.pid, constants.priority.PRIORITY_LOW)
      } catch {
        // Gone already, or not allowed here: the check runs at normal priority.
      }
    let output = ""
    child.stdout.on("data", (chunk) => (output += chunk))
    child.stderr.on("data", (chunk) => (output += chunk))
    child.on("error", (error) => {
      output += `${error}\n`
    })
    child.on("close", (code, signal) => {
      const status = code ?? 1
      process.stdout.write(`\n${name}: ${status === 0 ? "no type errors" : `failed (${signal ?? `exit ${code}`})`}\n`)
      if (output !== "") process.stdout.write(output)
      resolve(status)
    })
  })

const suite = new Promise((resolve) => {
  const child = spawn(process.execPath, [vitest, "run", ...process.argv.slice(2)], { stdio: "inherit" })
  child.on("error", () => resolve(1))
  child.on("close", (code) => resolve(code ?? 1))
})

const codes = await Promise.all([
  check("tsc --noEmit", ["--noEmit", "--incremental", "--tsBuildInfoFile", path.join(cache, "main.tsbuildinfo")]),
  check("tsc --noEmit -p src/ui", [
    "--noEmit",
    "-p",
    "src/ui",
    "--incremental",
    "--tsBuildInfoFile",
    path.join(cache, "ui.tsbuildinfo")
  ]),
  suite
])
process.exitCode = codes.some((code) => code !== 0) ? 1 : 0
