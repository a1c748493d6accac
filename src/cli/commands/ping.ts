/** `pmfx ping`: starts the daemon if needed and says whether it answers. */
import { Command } from "@effect/cli"
import { Console, Effect } from "effect"
import { withDaemon } from "../daemonCall"
import { printJson } from "../output"
import { jsonOption } from "./configOptions"

export const pingCommand = Command.make("ping", { json: jsonOption }, ({ json }) =>
  Effect.gen(function* () {
    const status = yield* withDaemon(json, (api) => api.system.status())
    yield* json
      ? printJson({ success: true, pid: status.pid, version: status.version, uptime: status.uptime })
      : Console.log(`pong: daemon ${status.pid} (pmfx ${status.version}), up ${status.uptime}`)
  })
).pipe(Command.withDescription("Start the daemon if it is not running, and check that it answers"))
