/** The `pmfx` command tree. */
import { Command } from "@effect/cli"
import { daemonCommand } from "./commands/daemon"
import { deleteCommand } from "./commands/delete"
import { killCommand } from "./commands/kill"
import { listCommand } from "./commands/list"
import { logsCommand } from "./commands/logs"
import { monitCommand } from "./commands/monit"
import { pingCommand } from "./commands/ping"
import { reloadCommand } from "./commands/reload"
import { restartCommand } from "./commands/restart"
import { resurrectCommand } from "./commands/resurrect"
import { showCommand } from "./commands/show"
import { startupCommand } from "./commands/startup"
import { statusCommand } from "./commands/status"
import { startCommand } from "./commands/start"
import { stopCommand } from "./commands/stop"
import { validateCommand } from "./commands/validate"
import { webCommand } from "./commands/web"

export const pmfx = Command.make("pmfx").pipe(
  Command.withDescription("pmfx — a process manager for Linux servers, built on Effect"),
  Command.withSubcommands([
    startCommand,
    stopCommand,
    restartCommand,
    reloadCommand,
    deleteCommand,
    killCommand,
    resurrectCommand,
    listCommand,
    logsCommand,
    monitCommand,
    statusCommand,
    pingCommand,
    validateCommand,
    showCommand,
    startupCommand,
    webCommand,
    daemonCommand
  ])
)
