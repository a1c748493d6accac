/**
 * Gives each instance its port (docs/architecture.md §4). `3000` → 3000 (one instance); `3000-3003` → first+i;
 * `auto:5000-5100` → the first port of the range that no other row holds and nothing else has
 * bound. Fixed ports are bind-tested too when first assigned, so a foreign listener is reported as
 * PORT_IN_USE instead of a crash loop. A row keeps its port across restarts, so the test runs only
 * at assignment — never against the row's own dying process.
 */
import { Effect, Either } from "effect"
import { InsufficientResources, InvalidConfig, PortInUse } from "../domain/errors"
import { parsePort, portCount, portHint } from "../domain/Port"
import { isPortFree } from "./portProbe"

export const assignPorts = (
  setting: string,
  instances: number,
  held: ReadonlySet<number>,
  owner: string,
  /** Bind-test fixed ports; off for runtime overrides, whose ports the app itself may hold. */
  options: { readonly bindTest?: boolean } = {}
): Effect.Effect<ReadonlyArray<number>, PortInUse | InsufficientResources | InvalidConfig> =>
  Effect.gen(function* () {
    const parsed = parsePort(setting)
    if (Either.isLeft(parsed)) {
      return yield* InvalidConfig.fromProblems([
        { field: "port", value: setting, message: parsed.left, suggestion: `write ${portHint}` }
      ])
    }
    const spec = parsed.right
    if (spec._tag !== "Auto" && portCount(spec) < instances) {
      return yield* new InsufficientResources({
        message: `${owner}: port ${setting} offers ${portCount(spec)} port(s) for ${instances} instances`,
        details: {
          resource: "ports",
          available: portCount(spec),
          required: instances,
          suggestion: "give a range with one port per instance, or an auto: range"
        }
      })
    }
    if (spec._tag === "Auto") {
      const chosen: Array<number> = []
      for (let port = spec.first; port <= spec.last && chosen.length < instances; port++) {
        if (held.has(port)) continue
        if (yield* isPortFree(port)) chosen.push(port)
      }
      if (chosen.length < instances) {
        return yield* new InsufficientResources({
          message: `${owner}: only ${chosen.length} free port(s) in ${setting} for ${instances} instances`,
          details: {
            resource: "ports",
            available: chosen.length,
            required: instances,
            suggestion: "widen the auto: range or free some ports"
          }
        })
      }
      return chosen
    }
    const first = spec._tag === "Single" ? spec.port : spec.first
    const ports = Array.from({ length: instances }, (_, i) => first + i)
    for (const port of ports) {
      if (held.has(port)) {
        return yield* new PortInUse({
          message: `${owner}: port ${port} is already assigned to another process`,
          details: { port, suggestion: "choose another port, or stop the process that holds it" }
        })
      }
      if (options.bindTest !== false && !(yield* isPortFree(port))) {
        return yield* new PortInUse({
          message: `${owner}: port ${port} is already in use by another program`,
          details: { port, suggestion: `find it with \`ss -ltnp 'sport = :${port}'\`, or choose another port` }
        })
      }
    }
    return ports
  })
