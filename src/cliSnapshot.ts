/**
 * The entry of the CLI's startup snapshot (`dist/pmfx-main.blob`; docs/architecture.md §10).
 *
 * The build runs this file once under `node --build-snapshot`: the CLI's modules are evaluated —
 * Effect, @effect/cli, the ~1,100 schema classes of the API and the configuration — and, when the
 * build asks for it, one command runs so that the functions every command runs are compiled too.
 * Node saves the heap it leaves. `dist/pmfx` (the executable) then starts `node --snapshot-blob`
 * on it, and every command begins from that heap instead of loading and evaluating the bundle
 * (~25–40 ms less CPU a command; docs/benchmarks.md).
 *
 * What the heap keeps must not depend on the process that made it. So `src/cliProgram.ts` reads
 * its arguments, environment and streams only when a command runs, and the bindings that name the
 * build's own files are pointed at the installed ones when the process starts (below).
 */
// First: before anything can read the global FormData (see the file).
import "./cli/deferFormData"
import Module from "node:module"
import * as path from "node:path"
import * as v8 from "node:v8"
import { runCli } from "./cliProgram"

/** The command the build runs before the heap is saved (JSON: the words after `pmfx`). */
const warmUp = process.env.PMFX_SNAPSHOT_WARM_UP
if (v8.startupSnapshot.isBuildingSnapshot() && warmUp !== undefined) {
  runCli([process.execPath, "pmfx", ...(JSON.parse(warmUp) as Array<string>)])
}

v8.startupSnapshot.setDeserializeMainFunction(() => {
  // `dist/pmfx` passes the launcher's path where Node would put the script's: the bundle's files
  // (vendor packages, the daemon's launcher) are found next to it, wherever the package lives.
  const launcher = path.resolve(process.argv[1] ?? "")
  // biome-ignore lint/suspicious/noGlobalAssign: the bundle's module-wrapper binding, not a global
  __dirname = path.dirname(launcher)
  // The `require` of the snapshot builder loads built-in modules only.
  // biome-ignore lint/suspicious/noGlobalAssign: the bundle's module-wrapper binding, not a global
  require = Module.createRequire(launcher)
  runCli(process.argv)
})
