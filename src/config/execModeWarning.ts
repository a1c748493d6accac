/**
 * A warning at load for `instances` without `exec_mode` on a Node script (docs/configuration.md,
 * `exec_mode`): pmfx runs the instances in fork mode, as separate processes, where PM2 would run
 * them in cluster mode, sharing one port. A file written for PM2 whose app reads one `PORT` then
 * crash-loops with EADDRINUSE; the warning says so before it happens, and how to silence it. An
 * app with pmfx's own `port` setting (one port per instance) is not warned about.
 * The default itself is unchanged (docs/decisions.md, "instances without exec_mode").
 */
import { isNodeInterpreter, isNodeScript } from "../domain/nodeProgram"

/** One instance (PM2 too runs it alone) or a value the decoder will refuse says nothing here. */
const severalInstances = (instances: unknown): boolean =>
  typeof instances === "number"
    ? instances !== 1
    : typeof instances === "string"
      ? instances.trim() !== "1" && instances.trim() !== ""
      : false

const runsWithNode = (script: unknown, interpreter: unknown): boolean => {
  if (typeof interpreter === "string" && interpreter.trim() !== "")
    return interpreter.trim() !== "none" && isNodeInterpreter(interpreter)
  return typeof script === "string" && isNodeScript(script)
}

/** The warning for one app's settings (aliases already read as their pmfx keys), or undefined. */
export const execModeWarning = (settings: Readonly<Record<string, unknown>>, at: string): string | undefined => {
  // With pmfx's `port` (a range: one port per instance), fork mode is what the file asks for.
  if ("exec_mode" in settings || !("instances" in settings) || "port" in settings) return undefined
  if (!severalInstances(settings.instances) || !runsWithNode(settings.script, settings.interpreter)) return undefined
  return (
    `${at}.instances ${JSON.stringify(settings.instances)} without exec_mode: pmfx runs these instances in fork mode (separate processes, each needs its own port), ` +
    `while PM2 runs a Node script in cluster mode (one port shared); set exec_mode to "cluster" for PM2's behaviour, or to "fork" to keep this one and silence this warning`
  )
}
