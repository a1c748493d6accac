/**
 * `pmfx completion --list-names`: what a shell completes a process argument with — every app
 * name, every namespace, and `all` — one per line, read from the local daemon's socket by the
 * launcher before the CLI bundle is loaded (a completion must come back at once). It never starts
 * a daemon: when none answers within a second, it prints nothing and exits 0, and the shell
 * offers no names.
 */
import { localProcessRows } from "./localRows"

const ANSWER_TIMEOUT_MS = 1_000

/** Whether these arguments are the completion scripts' call for names. */
export const isCompletionNames = (args: ReadonlyArray<string>): boolean =>
  args.length === 2 && args[0] === "completion" && args[1] === "--list-names"

/** The names to offer for rows of the daemon's list (`name`, `namespace`), sorted, without repeats. */
export const completionNames = (rows: ReadonlyArray<unknown>): Array<string> => {
  const names = new Set<string>()
  for (const row of rows) {
    if (typeof row !== "object" || row === null) continue
    const { name, namespace } = row as { readonly name?: unknown; readonly namespace?: unknown }
    if (typeof name === "string" && name !== "") names.add(name)
    if (typeof namespace === "string" && namespace !== "" && namespace !== "default") names.add(namespace)
  }
  return [...[...names].sort(), "all"]
}

/** Prints the names (or nothing) and resolves once done. */
export const printCompletionNames = async (env: NodeJS.ProcessEnv): Promise<void> => {
  const rows = await localProcessRows(env, ANSWER_TIMEOUT_MS)
  if (rows !== null)
    process.stdout.write(
      completionNames(rows)
        .map((name) => `${name}\n`)
        .join("")
    )
}
