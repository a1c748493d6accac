/**
 * `pmfx completion bash|zsh|fish`: prints the shell completion script (help/completionScripts.ts).
 * The script is written from the command tree, which is the tree this command is part of — hence
 * the model is passed in as a function, read when the command runs.
 */
import { Args, Command } from "@effect/cli"
import { Console } from "effect"
import type { ProgramModel } from "../help/commandModel"
import { completionScript, SHELLS } from "../help/completionScripts"

export const makeCompletionCommand = (model: () => ProgramModel) =>
  Command.make(
    "completion",
    {
      shell: Args.choice(SHELLS.map((shell) => [shell, shell] as const)).pipe(
        Args.withDescription("the shell to complete for: bash, zsh or fish")
      )
    },
    ({ shell }) => Console.log(completionScript(shell, model()).trimEnd())
  ).pipe(
    Command.withDescription(
      "Print a shell completion script: command names, their options, and the names of the current apps"
    )
  )
