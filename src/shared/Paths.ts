/**
 * The pmfx home folder (docs/architecture.md §5): `PMFX_HOME`, else `$XDG_DATA_HOME/pmfx`, else
 * `~/.local/share/pmfx`. Everything pmfx writes lives under it.
 */
import { Config, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { pathsUnder, resolveHome } from "./homePaths"

export { pathsUnder, resolveHome, socketPathFor } from "./homePaths"

const optionalVar = (name: string) => Config.option(Config.string(name)).pipe(Effect.map(Option.getOrUndefined))

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
