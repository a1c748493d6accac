/**
 * `${NAME}` and `${NAME:-default}` in every string of a configuration (docs/architecture.md §6), before it is
 * validated — so `instances: "${WORKERS:-2}"` becomes `"2"` and then the number 2. As in Docker
 * Compose, the default applies when the variable is unset or empty, and `$$` writes a literal `$`.
 */
import type { ConfigProblem } from "../domain/errors"
import { joinPath } from "./fieldPath"

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

export interface Substitution {
  readonly value: unknown
  readonly problems: ReadonlyArray<ConfigProblem>
}

export const substituteEnv = (
  value: unknown,
  environment: Readonly<Record<string, string | undefined>>,
  path = "",
  /** Paths left as written: what will not be used (PM2's `deploy`, unselected `env_<name>` blocks). */
  skip: (path: string) => boolean = () => false
): Substitution => {
  const problems: Array<ConfigProblem> = []
  const walk = (node: unknown, at: string): unknown => {
    if (skip(at)) return node
    if (typeof node === "string") {
      return node.replace(REFERENCE, (whole, name: string | undefined, fallback: string | undefined) => {
        if (name === undefined) return "$"
        const set = environment[name]
        if (set !== undefined && set !== "") return set
        if (fallback !== undefined) return fallback
        if (set !== undefined) return set
        problems.push({
          field: at,
          value: node,
          message: `environment variable ${name} is not set and ${whole} has no default`,
          suggestion: `set ${name}, or give a default: \${${name}:-value}`
        })
        return whole
      })
    }
    if (Array.isArray(node)) return node.map((item, i) => walk(item, joinPath(at, i)))
    if (typeof node === "object" && node !== null) {
      return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v, joinPath(at, k))]))
    }
    return node
  }
  return { value: walk(value, path), problems }
}
