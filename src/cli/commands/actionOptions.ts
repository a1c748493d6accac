/** Arguments and options shared by the commands that act on existing processes. */
import { Args, Options } from "@effect/cli"
import { Either } from "effect"
import { formatPort, parsePort, portHint } from "../../domain/Port"
import { optionValue } from "../usage"

/** `{id}` as docs/architecture.md §4 resolves it: a numeric id, `all`, an app name, or a namespace. */
export const targetArg = Args.text({ name: "id|name|namespace|all" }).pipe(
  Args.withDescription("a process id, an app name (all its instances), a namespace, or all")
)

/** `restart/reload --port`: a one-time override that does not change the saved configuration. */
export const portOverrideOption = Options.text("port").pipe(
  Options.withPseudoName("port"),
  Options.withDescription(
    "run on this port or range (3000, 3000-3003, auto:5000-5100) this time only; the saved configuration keeps its port"
  ),
  Options.mapEffect(optionValue("--port", (text) => Either.map(parsePort(text), formatPort), `write ${portHint}`)),
  Options.optional
)

export { plural } from "../../shared/plural"
