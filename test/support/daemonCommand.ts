/**
 * The command line of a test's daemon: the one the CLI starts (src/cli/DaemonClient.ts,
 * `daemonArguments`) — `node <daemon flags> dist/pmfx.cjs daemon [options]`. Through the launcher
 * the bundle compiles from the build's code cache, which was made under these flags;
 * `node dist/daemon.cjs` started without either compiled the whole bundle (~50 ms more CPU a start)
 * and ran V8 unlike any user's daemon (docs/decisions.md, "The suite, eighth pass").
 */
import { daemonArguments } from "../../src/daemon/daemonNodeFlags"
import { PMFX_BIN } from "./cli"

/** `[node, ...arguments]` for a daemon with the given `pmfx daemon` options. */
export const daemonCommand = (options: ReadonlyArray<string> = []): readonly [string, ...Array<string>] => [
  process.execPath,
  ...daemonArguments(PMFX_BIN, options)
]
