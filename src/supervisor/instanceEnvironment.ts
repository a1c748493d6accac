/**
 * The environment one instance runs with (docs/configuration.md §3.4 and §3.11): the starting
 * environment less what `filter_env` leaves out, then the identity's variables, `env_file`, `env`,
 * the `increment_var` value, `PORT`, and the instance index under PMFX_INSTANCE_ID and `instance_var`;
 * a Python app also gets `PYTHONUNBUFFERED=1` when nothing sets it (`runsOnPython`).
 * Pure: the caller reads `env_file`.
 */
import { Either } from "effect"
import * as path from "node:path"
import type { AppDefinition } from "../domain/AppDefinition"

/** The starting environment less what `filter_env` leaves out (PM2: `true` all, else names containing an entry). */
export const filterInherited = (
  baseEnv: Readonly<Record<string, string>>,
  filter: AppDefinition["filter_env"]
): Record<string, string> => {
  if (filter === true) return {}
  if (filter === false || filter.length === 0) return { ...baseEnv }
  return Object.fromEntries(Object.entries(baseEnv).filter(([key]) => !filter.some((part) => key.includes(part))))
}

/**
 * Whether the app's program is Python: a `python`/`python3.12` interpreter or command, or a `.py`
 * script. Python block-buffers its stdout into a pipe, so `print()` lines would reach the log only
 * once 8 KB piled up — never, when the process is killed (PM2's issue #3076: "PM2 does not capture
 * Python stdout") — so such an app gets `PYTHONUNBUFFERED=1` unless its environment sets it.
 */
export const runsOnPython = (app: Partial<Pick<AppDefinition, "script" | "interpreter" | "shell">>): boolean => {
  const isPython = (file: string) => /^python[\d.]*$/.test(path.basename(file.trim()))
  if (app.shell !== undefined && app.shell !== null) return false
  if (app.interpreter !== undefined && app.interpreter !== null) return isPython(app.interpreter)
  return app.script !== undefined && (isPython(app.script) || /\.py$/i.test(app.script.trim()))
}

export interface InstanceEnvironmentInput {
  readonly app: Pick<AppDefinition, "env" | "filter_env" | "increment_var" | "instance_var"> &
    Partial<Pick<AppDefinition, "script" | "interpreter" | "shell">>
  readonly instance: number
  readonly port: number | null
  readonly baseEnv: Readonly<Record<string, string>>
  readonly identityEnv?: Readonly<Record<string, string>>
  readonly fileEnv?: Readonly<Record<string, string>>
}

/** The merged environment, or why `increment_var` cannot be counted up. */
export const instanceEnvironment = (input: InstanceEnvironmentInput): Either.Either<Record<string, string>, string> => {
  const { app, instance } = input
  const env: Record<string, string> = {
    ...filterInherited(input.baseEnv, app.filter_env),
    ...input.identityEnv,
    ...input.fileEnv,
    ...app.env
  }
  if (app.increment_var !== null) {
    // PM2: the first instance gets the variable's value (0 when unset), each next one one more.
    const written = env[app.increment_var]
    const start = written === undefined || written.trim() === "" ? 0 : Number(written)
    if (!Number.isInteger(start)) {
      return Either.left(`increment_var ${app.increment_var} is "${written}", not a whole number to count up from`)
    }
    env[app.increment_var] = String(start + instance)
  }
  if (runsOnPython(app) && env.PYTHONUNBUFFERED === undefined) env.PYTHONUNBUFFERED = "1"
  if (input.port !== null) env.PORT = String(input.port)
  env.PMFX_INSTANCE_ID = String(instance)
  env[app.instance_var] = String(instance)
  return Either.right(env)
}
