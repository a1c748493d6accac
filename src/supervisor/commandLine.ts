/**
 * What to execute for an app (docs/architecture.md §4). A shell only when the user wrote a command line as
 * `script` (`shell` set: a script with a space that is no file, docs/configuration.md): then
 * `bash -c '<script>'`, the app's args passed as `"$@"`. Otherwise never a shell: `interpreter`
 * wins; an executable file runs directly (its shebang decides); otherwise the extension picks the
 * interpreter; a bare word is a command looked up in the child's PATH.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { AppDefinition } from "../domain/AppDefinition"
import { isNodeInterpreter, isNodeScript } from "../domain/nodeProgram"

export interface CommandLine {
  readonly file: string
  readonly args: ReadonlyArray<string>
}

/** Interpreters by extension for scripts that are not executable themselves. */
const byExtension: Readonly<Record<string, ReadonlyArray<string>>> = {
  ".js": [process.execPath],
  ".mjs": [process.execPath],
  ".cjs": [process.execPath],
  ".ts": ["tsx"],
  ".mts": ["tsx"],
  ".py": ["python3"],
  ".sh": ["bash", "sh"],
  ".rb": ["ruby"],
  ".pl": ["perl"],
  ".php": ["php"]
}

const isExecutableFile = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/** The first executable named `command` in `PATH`, like `which`. */
export const findInPath = (command: string, pathVariable: string | undefined): string | undefined => {
  if (command.includes("/")) return isExecutableFile(command) ? command : undefined
  for (const dir of (pathVariable ?? "").split(":")) {
    if (dir === "") continue
    const candidate = path.join(dir, command)
    if (isExecutableFile(candidate)) return candidate
  }
  return undefined
}

export type CommandProblem = { readonly reason: string; readonly suggestion: string }

/**
 * PM2's source map rule (docs/configuration.md, source_map_support): on or off when set, otherwise
 * on when a `<script>.map` file lies next to the script.
 */
const wantsSourceMaps = (app: Pick<AppDefinition, "script" | "source_map_support">): boolean =>
  app.source_map_support ?? (path.isAbsolute(app.script) && fs.existsSync(`${app.script}.map`))

/** What goes between the interpreter and the script: `--enable-source-maps` for Node when wanted, then `interpreter_args`. */
const interpreterFlags = (
  app: Pick<AppDefinition, "script" | "interpreter_args" | "source_map_support">,
  interpreter: string
): ReadonlyArray<string> =>
  isNodeInterpreter(interpreter) && wantsSourceMaps(app) && !app.interpreter_args.includes("--enable-source-maps")
    ? ["--enable-source-maps", ...app.interpreter_args]
    : app.interpreter_args

/**
 * The arguments of `<shell> -c` for a command line: with args, `"$@"` is appended to the line and
 * the args follow `$0`, so each reaches the command as one word whatever it holds (no quoting).
 */
export const shellArgs = (shell: string, script: string, args: ReadonlyArray<string>): ReadonlyArray<string> =>
  args.length === 0 ? ["-c", script] : ["-c", `${script} "$@"`, shell, ...args]

/** `app.js`, `worker.py`, `run.sh`: a word meant as a script file, rarely a command's name. */
const looksLikeScriptFile = (script: string): boolean =>
  /\.(js|mjs|cjs|ts|mts|cts|jsx|tsx|py|rb|pl|php|sh|bash|lua|jar)$/i.test(script)

export const commandLineFor = (
  app: Pick<AppDefinition, "script" | "args" | "interpreter" | "shell" | "interpreter_args" | "source_map_support">,
  pathVariable: string | undefined
):
  | { readonly _tag: "Ok"; readonly command: CommandLine }
  | { readonly _tag: "Problem"; readonly problem: CommandProblem } => {
  const ok = (file: string, args: ReadonlyArray<string>) => ({ _tag: "Ok" as const, command: { file, args } })
  const problem = (reason: string, suggestion: string) => ({
    _tag: "Problem" as const,
    problem: { reason, suggestion }
  })
  const withInterpreter = (interpreter: string) =>
    ok(interpreter, [...interpreterFlags(app, interpreter), app.script, ...app.args])
  const hasFlags = app.interpreter_args.length > 0
  const runsOnItsOwn = (what: string) =>
    problem(
      `node_args/interpreter_args are flags for an interpreter, but ${what} runs on its own`,
      "put the flags in `args`, or set `interpreter`"
    )

  if (app.shell !== null) {
    const shell = findInPath(app.shell, pathVariable)
    if (shell === undefined)
      return problem(
        `${app.shell} not found in PATH to run the command line ${JSON.stringify(app.script)}`,
        `install ${app.shell}, or give \`script\` as a file with its arguments in \`args\``
      )
    return ok(shell, shellArgs(app.shell, app.script, app.args))
  }
  if (app.interpreter !== null) {
    const interpreter = findInPath(app.interpreter, pathVariable)
    if (interpreter === undefined)
      return problem(
        `interpreter ${app.interpreter} not found`,
        "install it or fix `interpreter` (an absolute path or a command in PATH)"
      )
    return withInterpreter(interpreter)
  }
  if (!path.isAbsolute(app.script)) {
    const found = findInPath(app.script, pathVariable)
    if (found === undefined)
      return looksLikeScriptFile(app.script)
        ? problem(
            `no file ${app.script} (and no command of that name in PATH)`,
            "check the file's name and the folder you ran pmfx from (a relative script starts from the app's cwd), or give its full path"
          )
        : problem(`command ${app.script} not found in PATH`, "install it, or give `script` as a path to the file")
    // `script: node` with node_args: the command is the interpreter.
    if (hasFlags)
      return isNodeInterpreter(found) ? ok(found, [...app.interpreter_args, ...app.args]) : runsOnItsOwn(app.script)
    return ok(found, app.args)
  }
  if (!fs.existsSync(app.script))
    return problem(`${app.script} does not exist`, "check `script` (relative paths start from the app's cwd)")
  // `script: /usr/bin/node` with node_args: the command is the interpreter, as for a bare `node`.
  if (hasFlags && isNodeInterpreter(app.script) && isExecutableFile(app.script))
    return ok(app.script, [...app.interpreter_args, ...app.args])
  // Flags for the interpreter (or Node's source maps) need the interpreter on the command line,
  // so a script that could run by its shebang runs through the interpreter of its extension.
  const needsInterpreter = hasFlags || (isNodeScript(app.script) && wantsSourceMaps(app))
  const executable = isExecutableFile(app.script)
  if (executable && !needsInterpreter) return ok(app.script, app.args)
  const candidates = byExtension[path.extname(app.script).toLowerCase()]
  if (candidates === undefined) {
    if (executable) return runsOnItsOwn(path.basename(app.script))
    return problem(
      `${app.script} is not executable and its extension names no interpreter`,
      `chmod +x it (with a #! line), or set \`interpreter\``
    )
  }
  for (const candidate of candidates) {
    const interpreter = candidate.includes("/") ? candidate : findInPath(candidate, pathVariable)
    if (interpreter !== undefined) return withInterpreter(interpreter)
  }
  return problem(
    `${candidates.join(" or ")} not found to run ${path.basename(app.script)}`,
    "install it, or set `interpreter`"
  )
}
