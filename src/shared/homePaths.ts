/**
 * The pmfx home folder (docs/architecture.md §5) and the paths under it, with no Effect import: the launcher's
 * `list --json` fast path needs them before any of the CLI is loaded.
 */
import { createHash } from "node:crypto"
import * as os from "node:os"
import * as path from "node:path"

export const resolveHome = (env: {
  readonly PMFX_HOME?: string | undefined
  readonly XDG_DATA_HOME?: string | undefined
  readonly HOME?: string | undefined
}): string => {
  if (env.PMFX_HOME !== undefined && env.PMFX_HOME !== "") return path.resolve(env.PMFX_HOME)
  if (env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== "")
    return path.join(path.resolve(env.XDG_DATA_HOME), "pmfx")
  return path.join(env.HOME !== undefined && env.HOME !== "" ? env.HOME : os.homedir(), ".local", "share", "pmfx")
}

/** Unix socket paths longer than this do not fit in `sockaddr_un` (108 bytes with the NUL). */
const MAX_SOCKET_PATH = 107

/**
 * `<home>/pmfx.sock`, or — when that path is too long for a unix socket (docs/architecture.md §5) — a short path
 * in a private (0700) folder under the temp folder, named after a hash of the home so that the
 * CLI and the daemon of the same home agree on it.
 */
export const socketPathFor = (home: string): string => {
  const inHome = path.join(home, "pmfx.sock")
  if (Buffer.byteLength(inHome) <= MAX_SOCKET_PATH) return inHome
  const digest = createHash("sha256").update(home).digest("hex").slice(0, 16)
  return path.join(os.tmpdir(), `pmfx-${process.getuid?.() ?? "u"}-${digest}`, "pmfx.sock")
}

/** Every path pmfx uses under a home folder. */
export const pathsUnder = (home: string) =>
  ({
    home,
    logs: path.join(home, "logs"),
    pids: path.join(home, "pids"),
    /** The apps' stdout/stderr FIFOs (docs/decisions.md, "Apps outlive the daemon"). */
    pipes: path.join(home, "pipes"),
    socket: socketPathFor(home),
    state: path.join(home, "state.json"),
    daemonLog: path.join(home, "daemon.log"),
    daemonPid: path.join(home, "daemon.pid")
  }) as const

/**
 * A warning when the home folder lets other users in (wider than 0700), or null. pmfx does not
 * narrow an existing home itself — its owner may share it on purpose — but its own `logs/` folder
 * is 0700 whatever the home's mode (docs/configuration.md, "Log file permissions").
 */
export const homeModeWarning = (home: string, mode: number): string | null =>
  (mode & 0o077) === 0
    ? null
    : `warning: PMFX_HOME ${home} is readable by other users (mode ${(mode & 0o777).toString(8).padStart(4, "0")}); run \`chmod 700 ${home}\` unless you share it on purpose`
