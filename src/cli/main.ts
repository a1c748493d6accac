/**
 * The `pmfx` command tree. The global options `--url` and `--api-key` (before the command) choose
 * the daemon every command talks to (`DaemonTarget`); the client for it is provided here, once
 * the command line is parsed.
 */
import { Command, Options } from "@effect/cli"
import { Layer } from "effect"
import { DaemonClient } from "./DaemonClient"
import { DaemonTarget, resolveTarget } from "./DaemonTarget"
import { makeCompletionCommand } from "./commands/completion"
import { alertsCommand } from "./commands/alerts"
import { applyCommand } from "./commands/apply"
import { daemonCommand } from "./commands/daemon"
import { deleteCommand } from "./commands/delete"
import { daemonRestartCommand, updateCommand } from "./commands/daemonRestart"
import { killCommand } from "./commands/kill"
import { listCommand } from "./commands/list"
import { logsCommand } from "./commands/logs"
import { monitCommand } from "./commands/monit"
import { pingCommand } from "./commands/ping"
import { reloadCommand } from "./commands/reload"
import { restartCommand } from "./commands/restart"
import { resurrectCommand } from "./commands/resurrect"
import { scaleCommand } from "./commands/scale"
import { envCommand } from "./commands/env"
import { exportCommand } from "./commands/export"
import { flushCommand, reloadLogsCommand } from "./commands/flush"
import { resetCommand } from "./commands/reset"
import { saveCommand } from "./commands/save"
import { sendSignalCommand } from "./commands/sendSignal"
import { showCommand } from "./commands/show"
import { startupCommand } from "./commands/startup"
import { statusCommand } from "./commands/status"
import { startCommand } from "./commands/start"
import { stopCommand } from "./commands/stop"
import { validateCommand } from "./commands/validate"
import { webCommand } from "./commands/web"
import { programModel, type ProgramModel } from "./help/commandModel"

const globalOptions = {
  url: Options.text("url").pipe(
    Options.withPseudoName("URL"),
    Options.withDescription(
      "drive the daemon listening at this http(s) URL (its `pmfx web`) instead of the local one (or PMFX_URL)"
    ),
    Options.optional
  ),
  apiKey: Options.text("api-key").pipe(
    Options.withPseudoName("key"),
    Options.withDescription("the API key of the daemon at --url (or PMFX_API_KEY); sent as Authorization: Bearer"),
    Options.optional
  )
}

/**
 * Every command under `pmfx`, in the order `pmfx --help` lists them. The help, the usage errors
 * and the shell completions read their options from here (src/cli/help/commandModel.ts).
 */
export const commands = [
  startCommand,
  stopCommand,
  restartCommand,
  reloadCommand,
  applyCommand,
  deleteCommand,
  killCommand,
  resurrectCommand,
  scaleCommand,
  sendSignalCommand,
  resetCommand,
  listCommand,
  logsCommand,
  flushCommand,
  reloadLogsCommand,
  monitCommand,
  statusCommand,
  saveCommand,
  alertsCommand,
  pingCommand,
  validateCommand,
  showCommand,
  envCommand,
  startupCommand,
  exportCommand,
  webCommand,
  daemonCommand.pipe(Command.withSubcommands([daemonRestartCommand])),
  updateCommand,
  // (The completion script is written from this tree, read when the command runs.)
  makeCompletionCommand((): ProgramModel => programModel(pmfx, commands))
] as const

export const pmfx = Command.make("pmfx", globalOptions).pipe(
  Command.withDescription("pmfx — a process manager for Linux servers, built on Effect"),
  Command.withSubcommands(commands),
  Command.provide((options) =>
    DaemonClient.Default.pipe(
      Layer.provideMerge(Layer.effect(DaemonTarget, resolveTarget({ url: options.url, apiKey: options.apiKey })))
    )
  )
)
