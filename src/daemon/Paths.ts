/**
 * The pmfx home folder (DESIGN §3): `PMFX_HOME`, else `$XDG_DATA_HOME/pmfx`, else
 * `~/.local/share/pmfx`. Everything pmfx writes lives under it.
 */
import { Config, Effect, Layer, Option } from "effect"
import * as os from "node:os"
import * as path from "node:path"

export const resolveHome = (env: {
  readonly PMFX_HOME?: string | undefined
  readonly XDG_DATA_HOME?: string | undefined
  readonly HOME?: string | undefined
}): string => {
  if (env.PMFX_HOME !== undefined && env.PMFX_HOME !== "") return path.resolve(env.PMFX_HOME)
  if (env.XDG_DATA_HOME !== undefined && env.XDG_DATA_HOME !== "") return path.join(path.resolve(env.XDG_DATA_HOME), "pmfx")
  return path.join(env.HOME !== undefined && env.HOME !== "" ? env.HOME : os.homedir(), ".local", "share", "pmfx")
}

const optionalVar = (name: string) => Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined))

/** Every path pmfx uses under a home folder. */
export const pathsUnder = (home: string) =>
  ({
    home,
    logs: path.join(home, "logs"),
    pids: path.join(home, "pids"),
    socket: path.join(home, "pmfx.sock"),
    state: path.join(home, "state.json"),
    daemonLog: path.join(home, "daemon.log"),
    daemonPid: path.join(home, "daemon.pid")
  }) as const

export class Paths extends Effect.Service<Paths>()("pmfx/Paths", {
  effect: Effect.gen(function* () {
    return pathsUnder(
      resolveHome({
        PMFX_HOME: yield* optionalVar("PMFX_HOME"),
        XDG_DATA_HOME: yield* optionalVar("XDG_DATA_HOME"),
        HOME: yield* optionalVar("HOME")
      })
    )
  })
}) {
  /** Paths under an explicit home folder (tests, embedding programs). */
  static readonly at = (home: string) => Layer.succeed(Paths, new Paths(pathsUnder(path.resolve(home))))
}
