/** The `pmfx` command tree. */
import { Command } from "@effect/cli"
import { listCommand } from "./commands/list"
import { pingCommand } from "./commands/ping"
import { showCommand } from "./commands/show"
import { validateCommand } from "./commands/validate"

export const pmfx = Command.make("pmfx").pipe(
  Command.withDescription("pmfx — a process manager for Linux servers, built on Effect"),
  Command.withSubcommands([listCommand, pingCommand, validateCommand, showCommand])
)
