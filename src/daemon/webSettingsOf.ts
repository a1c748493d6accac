/** The TCP listener `--web` asks for (`pmfx daemon`, `pmfx-runtime`), checked by the rules of `pmfx web`. */
import { Either } from "effect"
import type { DaemonOptions } from "./DaemonOptions"
import { checkListener, DEFAULT_WEB_HOST, DEFAULT_WEB_PORT } from "./listenerRules"
import type { WebSettings } from "./StateFile"

/** The listener of `--web`, or the refusal `pmfx web` would give for the same settings. */
export const webSettingsOf = (options: DaemonOptions): Either.Either<WebSettings | undefined, string> => {
  if (!options.web) return Either.right(undefined)
  const checked = checkListener(
    {
      host: options.host ?? DEFAULT_WEB_HOST,
      port: options.port ?? DEFAULT_WEB_PORT,
      apiKey: options.apiKey,
      readOnlyApiKey: options.readOnlyApiKey,
      corsOrigins: [],
      verbose: false,
      allowInsecure: options.allowInsecure,
      metricsPublic: options.metricsPublic
    },
    process.env
  )
  if (checked._tag === "Refused") return Either.left(checked.message)
  if (checked.warning !== null) process.stderr.write(`${checked.warning}\n`)
  return Either.right(checked.settings)
}
