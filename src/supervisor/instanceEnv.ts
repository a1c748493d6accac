/**
 * The environment an instance was started with (`pmfx env`, docs/cli.md): a running process's
 * own, as the kernel recorded it at exec (`/proc/<pid>/environ`); for an instance that does not
 * run, the one its next start would get (the same merge the spawner makes).
 * Secret-looking keys are masked unless asked for (docs/decisions.md, "pmfx env").
 */
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import { environmentFor } from "./Spawner"
import { resolveIdentity } from "./userIdentity"
import type { AppRecord } from "./Row"

/** Keys whose values are secrets: *KEY*, *SECRET*, *TOKEN*, *PASSWORD* (any case). */
const SECRET_KEY = /KEY|SECRET|TOKEN|PASSWORD|PASSWD/i

export const looksSecret = (key: string): boolean => SECRET_KEY.test(key)

export const MASK = "***"

/** `env` with secret-looking values (or, with `all`, every value) replaced by `***`, and the keys masked. */
export const maskEnvironment = (
  env: Readonly<Record<string, string>>,
  which: "secrets" | "all"
): { readonly env: Record<string, string>; readonly masked: ReadonlyArray<string> } => {
  const out: Record<string, string> = {}
  const masked: Array<string> = []
  for (const key of Object.keys(env).sort()) {
    if (which === "all" || looksSecret(key)) {
      out[key] = MASK
      masked.push(key)
    } else out[key] = env[key]!
  }
  return { env: out, masked }
}

/** NUL-separated `KEY=value` pairs of /proc/<pid>/environ. */
const readProcEnvironment = (pid: number): Option.Option<Record<string, string>> => {
  try {
    const env: Record<string, string> = {}
    for (const pair of fs.readFileSync(`/proc/${pid}/environ`, "utf8").split("\0")) {
      const at = pair.indexOf("=")
      if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1)
    }
    return Option.some(env)
  } catch {
    return Option.none()
  }
}

export interface InstanceEnvironment {
  /** `process`: read from the running process; `next_start`: what its next start would get. */
  readonly source: "process" | "next_start"
  readonly env: Record<string, string>
}

export const instanceEnvironmentOf = (
  app: AppRecord,
  instance: number,
  pid: number | null,
  port: number | null
): Effect.Effect<InstanceEnvironment> =>
  Effect.gen(function* () {
    if (pid !== null) {
      const read = readProcEnvironment(pid)
      if (Option.isSome(read)) return { source: "process", env: read.value }
    }
    const identity = yield* resolveIdentity(app.definition.user, app.definition.group)
    const identityEnv = identity._tag === "Problem" ? {} : identity.identity.env
    const env = yield* environmentFor({ app: app.definition, instance, port, baseEnv: app.baseEnv }, identityEnv).pipe(
      // An unreadable env_file or a bad increment_var: show the rest (the start itself reports the problem).
      Effect.orElseSucceed(() => ({}) as Record<string, string>)
    )
    return { source: "next_start", env }
  })
