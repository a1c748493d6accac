/**
 * The command line of a test's daemon: the one the CLI starts (src/cli/DaemonClient.ts) —
 * `node <daemon flags> dist/pmfx.cjs daemon [options]`. Through the launcher the bundle compiles
 * from the build's code cache, which was made under these flags; `node dist/daemon.cjs` started
 * without either compiled the whole bundle (~50 ms more CPU a start) and ran V8 unlike any
 * user's daemon (docs/decisions.md, "The suite, eighth pass").
 */
import * as path from "node:path"
import { DAEMON_NODE_FLAGS } from "../../src/daemon/daemonNodeFlags"

const LAUNCHER = path.resolve(__dirname, "../../dist/pmfx.cjs")

/** `[node, ...arguments]` for a daemon with the given `pmfx daemon` options. */
export const daemonCommand = (options: ReadonlyArray<string> = []): readonly [string, ...Array<string>] => [
  process.execPath,
  ...DAEMON_NODE_FLAGS,
  LAUNCHER,
  "daemon",
  ...options
]
