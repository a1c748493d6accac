/**
 * `depends_on` and `ready_log_line` as written (docs/configuration.md, depends_on): an app name, a
 * list of names, or entries `{name, condition}`. Each entry is checked on its own, so a problem
 * names its exact field (`apps[2].depends_on[1].condition`) and an unknown condition gets the
 * closest known one. The cross-app checks (a `healthy` dependency needs a health check…) run once
 * every app of the file is decoded.
 */
import { Either } from "effect"
import { describe } from "../domain/codec"
import {
  type Dependency,
  type DependencyCondition,
  dependencyConditions,
  unreachableCondition
} from "../domain/Dependency"
import type { ConfigProblem } from "../domain/errors"
import { compileGrep } from "../logs/grepPattern"
import { closestKey } from "./closestKey"
import { isRecord } from "./mergeSettings"
import type { AppSettings } from "./AppSettings"

export interface DependsOnReading {
  /** The entries that are well formed (all of them when there is no problem). */
  readonly entries: ReadonlyArray<Dependency>
  /** Every name written, even in a malformed entry, for the checks across apps. */
  readonly names: ReadonlyArray<string>
  readonly problems: ReadonlyArray<ConfigProblem>
  /** Keys of an entry other than `name` and `condition` (warnings, or problems with --strict). */
  readonly unknownKeys: ReadonlyArray<ConfigProblem>
}

const ENTRY_KEYS = ["name", "condition"]
const CONDITIONS_TEXT = dependencyConditions.join(", ")

const isCondition = (text: string): text is DependencyCondition =>
  (dependencyConditions as ReadonlyArray<string>).includes(text)

/** Reads what a user wrote for `depends_on`; `field` is its path (`apps[0].depends_on`). */
export const readDependsOn = (raw: unknown, field: string): DependsOnReading => {
  const entries: Array<Dependency> = []
  const names: Array<string> = []
  const problems: Array<ConfigProblem> = []
  const unknownKeys: Array<ConfigProblem> = []
  if (typeof raw === "string")
    return { entries: [{ name: raw, condition: "online" }], names: [raw], problems, unknownKeys }
  if (!Array.isArray(raw)) {
    problems.push({
      field,
      value: raw,
      message: `expected an app name or an array of them, got ${describe(raw)}`,
      suggestion: 'write depends_on: ["db"], or with a condition: [{ "name": "db", "condition": "healthy" }]'
    })
    return { entries, names, problems, unknownKeys }
  }
  raw.forEach((item: unknown, i) => {
    const at = `${field}[${i}]`
    if (typeof item === "string") {
      entries.push({ name: item, condition: "online" })
      names.push(item)
      return
    }
    if (!isRecord(item)) {
      problems.push({
        field: at,
        value: item,
        message: `expected an app name or { name, condition }, got ${describe(item)}`,
        suggestion: 'write "db" or { "name": "db", "condition": "healthy" }'
      })
      return
    }
    for (const key of Object.keys(item)) {
      if (ENTRY_KEYS.includes(key)) continue
      const closest = closestKey(key, ENTRY_KEYS)
      unknownKeys.push({
        field: `${at}.${key}`,
        value: item[key],
        message: `unknown setting "${key}"`,
        suggestion:
          closest === undefined ? "remove it; an entry has only name and condition" : `did you mean "${closest}"?`
      })
    }
    const name = item.name
    let ok = true
    if (name === undefined) {
      problems.push({
        field: `${at}.name`,
        value: null,
        message: "is required",
        suggestion: "add name: the app to wait for"
      })
      ok = false
    } else if (typeof name !== "string" || name.trim() === "") {
      problems.push({
        field: `${at}.name`,
        value: name,
        message: `expected an app name, got ${describe(name)}`,
        suggestion: "write the name of an app of this file"
      })
      ok = false
    } else names.push(name)
    const written = item.condition
    let condition: DependencyCondition = "online"
    if (written !== undefined) {
      const text = typeof written === "string" ? written.trim() : undefined
      if (text !== undefined && isCondition(text)) condition = text
      else {
        const closest = text === undefined ? undefined : closestKey(text, dependencyConditions)
        problems.push({
          field: `${at}.condition`,
          value: written,
          message:
            text === undefined
              ? `expected one of ${CONDITIONS_TEXT}, got ${describe(written)}`
              : `unknown condition "${text}"`,
          suggestion: closest === undefined ? `write one of ${CONDITIONS_TEXT}` : `did you mean "${closest}"?`
        })
        ok = false
      }
    }
    if (ok) entries.push({ name: name as string, condition })
  })
  return { entries, names, problems, unknownKeys }
}

/** `ready_log_line` compiled as the daemon will (RE2): a pattern it cannot use is refused at load time. */
export const readyLogLineProblem = (pattern: string, field: string): ConfigProblem | undefined =>
  Either.match(compileGrep(pattern, "ready_log_line"), {
    onLeft: (refusal) => ({ field, value: pattern, message: refusal.reason, suggestion: refusal.suggestion }),
    onRight: () => undefined
  })

/**
 * Conditions no dependency of the file can ever meet (`healthy` on an app without a health check,
 * `log_ready` without `ready_log_line`, `completed_successfully` on an app that restarts): each
 * would leave its dependent waiting until the timeout, so the file is refused instead.
 */
export const checkConditions = (
  apps: ReadonlyArray<{ readonly index: number; readonly name: string; readonly settings: AppSettings }>
): Array<ConfigProblem> => {
  const problems: Array<ConfigProblem> = []
  const byName = new Map(apps.map((app) => [app.name, app]))
  for (const app of apps) {
    for (const [i, entry] of (app.settings.depends_on ?? []).entries()) {
      const dependency = byName.get(entry.name)
      if (dependency === undefined || dependency === app) continue
      const s = dependency.settings
      const unreachable = unreachableCondition(entry.name, entry.condition, {
        hasHealthCheck: s.health_check !== undefined && s.health_check.enabled !== false,
        readyLogLine: s.ready_log_line ?? null,
        restartsAfterCleanExit: (s.autorestart ?? true) && !(s.stop_exit_codes ?? []).includes(0)
      })
      if (unreachable !== undefined)
        problems.push({
          field: `apps[${app.index}].depends_on[${i}].condition`,
          value: entry.condition,
          ...unreachable
        })
    }
  }
  return problems
}
