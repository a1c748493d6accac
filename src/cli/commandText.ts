/**
 * The command line `show` prints for an app: its words quoted for a shell, and a command line run
 * through a shell as that shell's own invocation (`bash -c 'npm run start:prod' bash --port 3000`,
 * the args after `$0` as `shellArgs` passes them).
 */
import { quoteShellWord } from "../domain/shellWords"
import { shellArgs } from "../supervisor/commandLine"

export const commandText = (shell: string | null, script: string, args: ReadonlyArray<string>): string => {
  if (shell === null) return [script, ...args].map(quoteShellWord).join(" ")
  const [program = shell] = shell.split(" ")
  return [program, ...shellArgs(program, script, args)].map(quoteShellWord).join(" ")
}
