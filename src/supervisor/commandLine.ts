/**
 * What to execute for an app (DESIGN §4). A shell only when the user wrote a command line as
 * `script` (`shell` set: a script with a space that is no file, docs/configuration.md): then
 * `bash -c '<script>'`, the app's args passed as `"$@"`. Otherwise never a shell: `interpreter`
 * wins; an executable file runs directly (its shebang decides); otherwise the extension picks the
 * interpreter; a bare word is a command looked up in the child's PATH.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { AppDefinition } from "../domain/AppDefinition"

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
 * The arguments of `<shell> -c` for a command line: with args, `"$@"` is appended to the line and
 * the args follow `$0`, so each reaches the command as one word whatever it holds (no quoting).
 */
export const shellArgs = (shell: string, script: string, args: ReadonlyArray<string>): ReadonlyArray<string> =>
  args.length === 0 ? ["-c", script] : ["-c", `${script} "$@"`, shell, ...args]

export const commandLineFor = (
  app: Pick<AppDefinition, "script" | "args" | "interpreter" | "shell">,
  pathVariable: string | undefined
): { readonly _tag: "Ok"; readonly command: CommandLine } | { readonly _tag: "Problem"; readonly problem: CommandProblem } => {
  const ok = (file: string, args: ReadonlyArray<string>) => ({ _tag: "Ok" as const, command: { file, args } })
  const problem = (reason: string, suggestion: string) => ({ _tag: "Problem" as const, problem: { reason, suggestion } })

  if (app.shell !== null) {
    const shell = findInPath(app.shell, pathVariable)
    if (shell === undefined) return problem(`${app.shell} not found in PATH to run the command line ${JSON.stringify(app.script)}`, `install ${app.shell}, or give \`script\` as a file with its arguments in \`args\``)
    return ok(shell, shellArgs(app.shell, app.script, app.args))
  }
  if (app.interpreter !== null) {
    const interpreter = findInPath(app.interpreter, pathVariable)
    if (interpreter === undefined) return problem(`interpreter ${app.interpreter} not found`, "install it or fix `interpreter` (an absolute path or a command in PATH)")
    return ok(interpreter, [app.script, ...app.args])
  }
  if (!path.isAbsolute(app.script)) {
    const found = findInPath(app.script, pathVariable)
    return found === undefined
      ? problem(`command ${app.script} not found in PATH`, "install it, or give `script` as a path to the file")
      : ok(found, app.args)
  }
  if (!fs.existsSync(app.script)) return problem(`${app.script} does not exist`, "check `script` (relative paths start from the app's cwd)")
  if (isExecutableFile(app.script)) return ok(app.script, app.args)
  const candidates = byExtension[path.extname(app.script).toLowerCase()]
  if (candidates === undefined) {
    return problem(`${app.script} is not executable and its extension names no interpreter`, `chmod +x it (with a #! line), or set \`interpreter\``)
  }
  for (const candidate of candidates) {
    const interpreter = candidate.includes("/") ? candidate : findInPath(candidate, pathVariable)
    if (interpreter !== undefined) return ok(interpreter, [app.script, ...app.args])
  }
  return problem(`${candidates.join(" or ")} not found to run ${path.basename(app.script)}`, "install it, or set `interpreter`")
}
