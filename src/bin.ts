/**
 * The CLI bundle's entry (`dist/pmfx-main.cjs`, which the launcher `dist/pmfx.cjs` loads when the
 * CLI does not start from its startup snapshot): runs this process's command line.
 */
// First: before anything can read the global FormData (see the file).
import "./cli/deferFormData"
import * as path from "node:path"
import { runCli } from "./cliProgram"

const args = process.argv.slice(2)
// (`pmfx daemon restart` is a CLI command: it talks to the daemon rather than being one.)
if (args[0] === "daemon" && args[1] !== "restart" && !args.includes("--help") && !args.includes("-h")) {
  // The daemon runs from its own bundle, loaded only for this command (docs/architecture.md §1: keep server code
  // out of the everyday CLI path), with its own runtime and signal handling.
  const daemon = require(path.join(__dirname, "daemon.cjs")) as { readonly main: (args: ReadonlyArray<string>) => void }
  daemon.main(args.slice(1))
} else {
  runCli(process.argv)
}
