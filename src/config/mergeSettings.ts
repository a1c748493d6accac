/**
 * How `extends` merges a base into the file or app that extends it: objects merge key by key
 * (so `env` and `health_check` combine), anything else — strings, numbers, arrays — is replaced.
 * At the top of a file, `apps` merge by name: an app of the same name overrides the base's app
 * setting by setting, and new apps are added after the base's.
 */
const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

export const mergeSettings = (base: unknown, override: unknown): unknown => {
  if (!isRecord(base) || !isRecord(override)) return override
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(override)) {
    merged[key] = key in base ? mergeSettings(base[key], value) : value
  }
  return merged
}

const nameOf = (app: unknown): unknown => (isRecord(app) ? app.name : undefined)

export const mergeEcosystems = (
  base: Record<string, unknown>,
  override: Record<string, unknown>
): Record<string, unknown> => {
  const { apps: baseApps, ...baseRest } = base
  const { apps: overrideApps, ...overrideRest } = override
  const merged = mergeSettings(baseRest, overrideRest) as Record<string, unknown>
  if (!Array.isArray(baseApps) || !Array.isArray(overrideApps)) {
    const apps = overrideApps ?? baseApps
    return apps === undefined ? merged : { ...merged, apps }
  }
  const apps = baseApps.slice()
  for (const app of overrideApps) {
    const name = nameOf(app)
    const at = name === undefined ? -1 : apps.findIndex((b) => nameOf(b) === name)
    if (at >= 0) apps[at] = mergeSettings(apps[at], app)
    else apps.push(app)
  }
  return { ...merged, apps }
}

export { isRecord }
