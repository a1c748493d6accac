/** The `pmfx` command tree. */
import { Command } from "@effect/cli"
import { showCommand } from "./commands/show"
import { validateCommand } from "./commands/validate"

export const pmfx = Command.make("pmfx").pipe(
  Command.withDescription("pmfx — a process manager for Linux servers, built on Effect"),
  Command.withSubcommands([validateCommand, showCommand])
)
