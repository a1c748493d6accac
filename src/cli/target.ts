/**
 * `validate`, `show` and `status` take a configuration file or a process name/id (docs/architecture.md §10).
 * The argument is a file when it can only be one: it ends with a configuration format's extension
 * or starts like a path (`/`, `./`, `../`) — whether or not it exists, so that a mistyped file name
 * is reported as a missing file (exit 3), not as an unknown process. Any other argument with a `/`
 * is a file when one exists there, else an app name (names may hold `/`: `web/admin`). Anything
 * else (`api`, `3`, `all`, a namespace) is a process, even when a file of that name sits in the
 * current folder: a file without a configuration extension could not be loaded anyway (formats go
 * by extension).
 */
import { Args } from "@effect/cli"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { CallerEnvironment } from "./CallerEnvironment"

export const CONFIG_EXTENSIONS = [".json", ".yaml", ".yml", ".toml", ".js", ".cjs", ".mjs"] as const

export type Target =
  | { readonly _tag: "File"; readonly file: string }
  | { readonly _tag: "Process"; readonly id: string }

export const classifyTarget = (arg: string, cwd: string): Target => {
  const file = path.resolve(cwd, arg)
  const looksLikeFile =
    CONFIG_EXTENSIONS.some((ext) => arg.toLowerCase().endsWith(ext)) ||
    /^\.{0,2}\//.test(arg) ||
    (arg.includes("/") && fs.existsSync(file))
  return looksLikeFile ? { _tag: "File", file } : { _tag: "Process", id: arg }
}

export const targetDescription =
  "an ecosystem file (.json, .yaml, .yml, .toml, .js, .cjs, .mjs, or a path starting with /, ./ or ../), or a process name, id or namespace"

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
