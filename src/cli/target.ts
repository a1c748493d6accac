/**
 * `validate`, `show` and `status` take a configuration file or a process name/id (DESIGN §9).
 * The argument is a file when it can only be one: it names a path (has a `/`) or ends with a
 * configuration format's extension — whether or not it exists, so that a mistyped file name is
 * reported as a missing file (exit 3), not as an unknown process. Anything else (`api`, `3`,
 * `all`, a namespace) is a process, even when a file of that name sits in the current folder: a
 * file without a configuration extension could not be loaded anyway (formats go by extension).
 */
import { Args } from "@effect/cli"
import { Effect } from "effect"
import * as path from "node:path"
import { CallerEnvironment } from "./CallerEnvironment"

export const CONFIG_EXTENSIONS = [".json", ".yaml", ".yml", ".toml", ".js", ".cjs", ".mjs"] as const

export type Target =
  | { readonly _tag: "File"; readonly file: string }
  | { readonly _tag: "Process"; readonly id: string }

export const classifyTarget = (arg: string, cwd: string): Target => {
  const looksLikeFile = arg.includes("/") || CONFIG_EXTENSIONS.some((ext) => arg.toLowerCase().endsWith(ext))
  return looksLikeFile ? { _tag: "File", file: path.resolve(cwd, arg) } : { _tag: "Process", id: arg }
}

export const targetDescription = "an ecosystem file (.json, .yaml, .yml, .toml, .js, .cjs, .mjs or any path with a /), or a process name, id or namespace"

/** The `<file|name|id>` argument of `validate`, `show` and `status`. */
export const targetArg = Args.text({ name: "file|name|id" }).pipe(Args.withDescription(targetDescription))

/** Classifies `target` against the caller's folder and runs the file or the process branch. */
export const onTarget = <A, E1, R1, E2, R2>(
  target: string,
  onFile: (file: string) => Effect.Effect<A, E1, R1>,
  onProcess: (id: string) => Effect.Effect<A, E2, R2>
): Effect.Effect<A, E1 | E2, R1 | R2 | CallerEnvironment> =>
  Effect.flatMap(CallerEnvironment, (caller): Effect.Effect<A, E1 | E2, R1 | R2> => {
    const classified = classifyTarget(target, caller.cwd)
    return classified._tag === "File" ? onFile(classified.file) : onProcess(classified.id)
  })
