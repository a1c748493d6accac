/**
 * How an app waits for a dependency where the engine has no `depends_on` of its own (Kubernetes):
 * over the network, at the dependency's Service. docs/export.md, "depends_on on Kubernetes".
 */
import type { Dependency } from "../domain/Dependency"
import type { PortableApp } from "./portableApp"

export type DependencyWait =
  /** Wait until the Service answers: a TCP connection (`nc -z`), or the health URL with 2xx (`wget`). */
  | { readonly _tag: "Wait"; readonly name: string; readonly script: string }
  /** Nothing on the network can tell: the order is only recorded, with why. */
  | { readonly _tag: "Unrenderable"; readonly note: string }

/** A word for `sh -c`: single-quoted, a quote inside closed and reopened. */
const shellQuote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`

export const dependencyWait = (
  app: PortableApp,
  dependency: Dependency,
  target: PortableApp | undefined
): DependencyWait => {
  const what = `${dependency.name} (${dependency.condition})`
  if (target === undefined)
    return { _tag: "Unrenderable", note: `${what} is not in the export; start it first by hand` }
  if (dependency.condition === "completed_successfully") {
    return {
      _tag: "Unrenderable",
      note: `${what}: a Pod cannot see another workload's completion without API access; run ${target.id} first (kubectl wait --for=condition=complete job/${target.id})`
    }
  }
  if (target.port === null) {
    return {
      _tag: "Unrenderable",
      note: `${what}: ${dependency.name} has no port, so nothing on the network says it is up; start it first`
    }
  }
  const port = target.port.first
  const health = target.healthCheck
  const byHealth =
    dependency.condition !== "online" &&
    health !== null &&
    health.kind === "http" &&
    health.host === null &&
    health.port === port
  const probe = byHealth
    ? `wget -q -O /dev/null ${shellQuote(`${health.scheme.toLowerCase()}://${target.id}:${port}${health.path}`)}`
    : `nc -z ${target.id} ${port}`
  const script = `until ${probe}; do echo ${shellQuote(`${app.id} waits for ${target.id}`)}; sleep 2; done`
  if (dependency.condition === "healthy" && !byHealth) {
    return {
      _tag: "Unrenderable",
      note: `${what}: ${dependency.name}'s health check is not an HTTP URL on its port, so no other Pod can run it; start it first`
    }
  }
  return { _tag: "Wait", name: `wait-for-${target.id}`.slice(0, 63), script }
}
