/**
 * Checks of one app's decoded settings that a schema cannot say (docs/configuration.md): a health
 * check has what its type needs, `instances` is within bounds, cluster mode runs Node and listens
 * on one port, and a port range offers a port per instance.
 */
import { Either } from "effect"
import * as path from "node:path"
import { MAX_INSTANCES } from "../domain/AppDefinition"
import type { ConfigProblem } from "../domain/errors"
import { isNodeInterpreter, isNodeScript } from "../domain/nodeProgram"
import { parsePort, portCount } from "../domain/Port"
import type { AppSettings } from "./AppSettings"
import { joinPath } from "./fieldPath"
import { resolveInstances } from "./settingCodecs"

/** Whether `script` runs on Node: a .js/.mjs/.cjs file, or `interpreter` node (cluster mode needs it). */
export const runsOnNode = (script: string, interpreter: string | undefined): boolean =>
  interpreter !== undefined && interpreter !== "none" ? isNodeInterpreter(interpreter) : isNodeScript(script)

/**
 * Whether cluster mode can run `script`: a Node script, or a file without an extension, which PM2
 * runs with node too (`./bin/www`, the Express generator's default).
 */
const clusterRuns = (script: string, interpreter: string | undefined): boolean =>
  runsOnNode(script, interpreter) ||
  ((interpreter === undefined || interpreter === "none") && path.extname(script.trim()) === "")

/** Replaced by each instance's own port in a health check URL (`http://127.0.0.1:{port}/health`). */
export const PORT_TOKEN = "{port}"

export const isHttpUrl = (text: string): boolean => {
  try {
    const url = new URL(text)
    return url.protocol === "http:" || url.protocol === "https:"
  } catch {
    return false
  }
}

/** The problems of one app's settings; `input` is what the file wrote, `at` the app's path. */
export const settingProblems = (
  settings: AppSettings,
  input: Readonly<Record<string, unknown>>,
  at: string,
  cpus: number
): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const health = settings.health_check
  if (health !== undefined && health.enabled !== false) {
    const type = health.check_type ?? (health.script !== undefined && health.url === undefined ? "script" : "http")
    if (type === "http" && (health.url === undefined || !isHttpUrl(health.url.replaceAll(PORT_TOKEN, "1")))) {
      problems.push({
        field: joinPath(at, "health_check.url"),
        value: health.url ?? null,
        message: health.url === undefined ? "is required for an http health check" : "is not an http(s) URL",
        suggestion: "write the URL to check, like http://127.0.0.1:3000/health"
      })
    }
    if (type === "script" && health.script === undefined) {
      problems.push({
        field: joinPath(at, "health_check.script"),
        value: null,
        message: "is required for a script health check",
        suggestion: "write the path of a script that exits 0 when the app is healthy"
      })
    }
  }

  const instances = resolveInstances(settings.instances ?? 1, cpus)
  const tooMany = instances > MAX_INSTANCES
  if (tooMany) {
    problems.push({
      field: joinPath(at, "instances"),
      value: input.instances ?? null,
      message: `asks for ${instances} instances, more than ${MAX_INSTANCES}`,
      suggestion: `write at most ${MAX_INSTANCES} instances`
    })
  }
  const cluster = settings.exec_mode === "cluster" || settings.exec_mode === "cluster_mode"
  if (cluster && !clusterRuns(settings.script, settings.interpreter)) {
    problems.push({
      field: joinPath(at, "exec_mode"),
      value: input.exec_mode ?? null,
      message: `cluster mode runs Node scripts only (.js, .mjs, .cjs, a file without an extension, or interpreter node), and ${JSON.stringify(settings.script)} is not one`,
      suggestion:
        'remove exec_mode and give each instance its own port: "instances": 4 with "port": "3000-3003" (or auto:5000-5100)'
    })
  }
  if (cluster && settings.port !== undefined) {
    const spec = Either.getOrThrow(parsePort(settings.port))
    if (spec._tag !== "Single") {
      problems.push({
        field: joinPath(at, "port"),
        value: settings.port,
        message: "in cluster mode every worker listens on the app's one port",
        suggestion: "write a single port like 3000"
      })
    }
  }
  // (With too many instances the port check would only repeat the problem; cluster workers share one port.)
  if (settings.port !== undefined && !tooMany && !cluster) {
    const spec = Either.getOrThrow(parsePort(settings.port))
    if (spec._tag !== "Auto" && portCount(spec) < instances) {
      problems.push({
        field: joinPath(at, "port"),
        value: settings.port,
        message: `offers ${portCount(spec)} port${portCount(spec) === 1 ? "" : "s"} for ${instances} instances`,
        suggestion: `give a range with one port per instance, like ${spec._tag === "Single" ? spec.port : spec.first}-${(spec._tag === "Single" ? spec.port : spec.first) + instances - 1}, or auto:<first>-<last>`
      })
    }
  }
  return problems
}
