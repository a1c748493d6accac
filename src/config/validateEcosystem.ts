/**
 * Checks a whole ecosystem document (already merged with its `extends` and substituted) and
 * reports every problem at once, each with the path of the setting, the offending value and a
 * suggestion. Pure: reading files is the loader's job.
 */
import { MAX_APPS, MAX_INSTANCES } from "../domain/AppDefinition"
import type { ConfigProblem } from "../domain/errors"
import { execModeWarning } from "./execModeWarning"
import { AppSettings, EcosystemSettings } from "./AppSettings"
import { decodeAll, unknownKeyWarning } from "./decodeSettings"
import { joinPath } from "./fieldPath"
import { isRecord } from "./mergeSettings"
import { pm2Aliases, pm2IgnoredAppKeys, pm2IgnoredTopKeys, scriptAliases } from "./pm2Keys"
import { EnvMap, resolveInstances } from "./settingCodecs"
import { honouredWatchOptions } from "./watchOptions"
import { checkConditions, readDependsOn, readyLogLineProblem } from "./dependsOnSetting"
import * as path from "node:path"
import { isHttpUrl, settingProblems } from "./appSettingChecks"
import { checkDependencies, checkNames, type Identity } from "./crossAppChecks"

export { PORT_TOKEN, runsOnNode } from "./appSettingChecks"

export interface ValidatedApp {
  /** Position in `apps`, for problem paths. */
  readonly index: number
  /** The app's name, given or derived from its script. */
  readonly name: string
  readonly settings: AppSettings
  /** `env_<name>` blocks by name (`production` for `env_production`). */
  readonly envBlocks: Readonly<Record<string, Readonly<Record<string, string>>>>
}

export interface ValidatedEcosystem {
  readonly apps: ReadonlyArray<ValidatedApp>
  readonly top: typeof EcosystemSettings.Type
  readonly problems: ReadonlyArray<ConfigProblem>
  readonly warnings: ReadonlyArray<string>
}

const ENV_BLOCK = /^env_([A-Za-z0-9_-]+)$/

const appKeys = [...Object.keys(AppSettings.fields), "env_production"]
const topKeys = ["apps", ...Object.keys(EcosystemSettings.fields)]

/** The name a script file gives an app: its file name without the extension (`./api/server.js` → `server`). */
export const fileAppName = (script: string): string => path.basename(script).replace(/\.[^.]*$/, "") || script

/**
 * Derives an app's name from its script when none is given, as PM2 does: a file by its file name
 * (`fileAppName`); a command line (its last path part has a space: `npm run start:prod`) by the
 * whole line, trimmed.
 */
export const defaultAppName = (script: string): string =>
  /\s/.test(path.basename(script.trim())) ? script.trim() : fileAppName(script)

export interface ValidateOptions {
  /** CPU count, for `instances: max`. */
  readonly cpus: number
  /**
   * Unknown keys are problems (`pmfx validate --strict`) instead of warnings. PM2 ignores keys it
   * does not know, so by default a file with one still loads, with a warning naming the closest key.
   */
  readonly strict?: boolean | undefined
}

/** Where the findings of one validation go: problems, warnings, and unknown keys as `strict` says. */
class Findings {
  readonly problems: Array<ConfigProblem> = []
  readonly warnings: Array<string> = []
  constructor(private readonly strict: boolean) {}
  unknown(found: ReadonlyArray<ConfigProblem>): void {
    if (this.strict) this.problems.push(...found)
    else this.warnings.push(...found.map(unknownKeyWarning))
  }
}

/** The app settings pmfx reads (its own, PM2's spellings of them, and PM2's keys it ignores). */
const appSettingKeys = new Set([...appKeys, ...Object.keys(pm2Aliases), ...Object.keys(pm2IgnoredAppKeys), "log"])

export const validateEcosystem = (doc: unknown, options: ValidateOptions): ValidatedEcosystem => {
  const findings = new Findings(options.strict === true)
  const { problems, warnings } = findings
  if (!isRecord(doc)) {
    problems.push({
      field: "",
      value: Array.isArray(doc) ? "an array" : doc,
      message: "an ecosystem file must be an object with an apps array",
      suggestion: Array.isArray(doc)
        ? 'wrap the list: { "apps": [ ... ] }'
        : 'write { "apps": [ { "name": "api", "script": "server.js" } ] }'
    })
    return { apps: [], top: {}, problems, warnings }
  }

  const { apps: rawApps, ...rest } = doc
  const topInput: Record<string, unknown> = {}
  const misplaced: Array<ConfigProblem> = []
  for (const [key, value] of Object.entries(rest)) {
    if (key in pm2IgnoredTopKeys) warnings.push(`${key} is ignored: ${pm2IgnoredTopKeys[key]}`)
    else if (!topKeys.includes(key) && (appSettingKeys.has(key) || ENV_BLOCK.test(key))) {
      // `max_restarts: 5` beside `apps`: PM2 ignores it there too, which the author did not mean.
      misplaced.push({
        field: key,
        value,
        message: `"${key}" is an app setting, not a setting of the whole file`,
        suggestion: `move it into each app of "apps" that should have it`
      })
    } else topInput[key] = value
  }
  if (options.strict === true) problems.push(...misplaced)
  else warnings.push(...misplaced.map((m) => `${m.field}: ${m.message}; it is ignored here — ${m.suggestion}`))
  // `apps` is checked below; only the other top-level keys are decoded here.
  const decodedTop = decodeAll(EcosystemSettings, topInput, "", topKeys)
  findings.unknown(decodedTop.unknownKeys)
  problems.push(...decodedTop.problems)
  const top: typeof EcosystemSettings.Type = decodedTop.value ?? {}
  // Read from the input, not the decoded settings: one bad key in `webhooks` fails the whole block's
  // decoding, and its URLs must still be reported with it (every problem at once).
  const rawWebhooks: ReadonlyArray<unknown> = Array.isArray(topInput.webhooks) ? topInput.webhooks : []
  for (const [index, hook] of rawWebhooks.entries()) {
    const url = isRecord(hook) ? hook.url : undefined
    if (typeof url === "string" && !isHttpUrl(url)) {
      problems.push({
        field: `webhooks[${index}].url`,
        value: url,
        message: "is not an http(s) URL",
        suggestion: "write a URL like http://127.0.0.1:8080/hook"
      })
    }
  }

  if (!Array.isArray(rawApps)) {
    problems.push({
      field: "apps",
      value: rawApps ?? null,
      message:
        rawApps === undefined ? "is required: the file has no apps array" : "must be an array of app definitions",
      suggestion: 'write "apps": [ { "name": "api", "script": "server.js" } ]'
    })
    return { apps: [], top, problems, warnings }
  }
  if (rawApps.length === 0) {
    problems.push({
      field: "apps",
      value: [],
      message: "has no app",
      suggestion: "define at least one app with a script"
    })
  }

  if (rawApps.length > MAX_APPS) {
    // Refused before each app is checked: thousands of apps would give thousands of problems.
    problems.push({
      field: "apps",
      value: rawApps.length,
      message: `defines ${rawApps.length} apps, more than ${MAX_APPS} (the most one file may define)`,
      suggestion: `split the apps into files of at most ${MAX_APPS} apps and start each file (pmfx start part-1.json, then pmfx start part-2.json)`
    })
    return { apps: [], top, problems, warnings }
  }

  const apps: Array<ValidatedApp> = []
  const identities: Array<Identity> = []
  rawApps.forEach((rawApp, index) => {
    const at = `apps[${index}]`
    const checked = validateApp(rawApp, at, options, findings)
    if (checked.app !== undefined) {
      apps.push({ ...checked.app, index })
      identities.push({
        index,
        name: checked.app.name,
        depends_on: (checked.app.settings.depends_on ?? []).map((entry) => entry.name)
      })
    } else if (checked.identity !== undefined) identities.push({ index, ...checked.identity })
  })

  problems.push(...checkNames(identities), ...checkDependencies(identities), ...checkConditions(apps))
  const processes = apps.reduce((sum, app) => sum + resolveInstances(app.settings.instances ?? 1, options.cpus), 0)
  // (One app over the limit is already reported at its own `instances`.)
  if (
    processes > MAX_INSTANCES &&
    apps.every((app) => resolveInstances(app.settings.instances ?? 1, options.cpus) <= MAX_INSTANCES)
  ) {
    problems.push({
      field: "apps",
      value: processes,
      message: `asks for ${processes} processes in all (instances summed over its apps), more than ${MAX_INSTANCES}`,
      suggestion: `use fewer instances, or split the apps into several files of at most ${MAX_INSTANCES} processes each`
    })
  }
  return { apps, top, problems, warnings }
}

interface AppCheck {
  readonly app?: Omit<ValidatedApp, "index">
  /** Name and dependencies read from an app that failed to decode, so they are still checked. */
  readonly identity?: { readonly name: string; readonly depends_on: ReadonlyArray<string> }
}

/** What the cross-app checks need, read leniently from a definition that failed to decode. */
const identityOf = (raw: Record<string, unknown>, depends_on: ReadonlyArray<string>): AppCheck["identity"] => {
  const name =
    typeof raw.name === "string" ? raw.name : typeof raw.script === "string" ? defaultAppName(raw.script) : undefined
  // An empty name is already reported by its decoder.
  if (name === undefined || name.trim() === "") return undefined
  return { name, depends_on }
}

/** Checks one app definition; `at` is its path (`apps[2]`, or `app` for a definition given alone). */
const validateApp = (rawApp: unknown, at: string, options: ValidateOptions, findings: Findings): AppCheck => {
  const { warnings } = findings
  if (!isRecord(rawApp)) {
    findings.problems.push({
      field: at,
      value: rawApp,
      message: "must be an object of settings",
      suggestion: 'write { "name": "api", "script": "server.js" }'
    })
    return {}
  }
  const problems: Array<ConfigProblem> = []
  const input: Record<string, unknown> = {}
  const envBlockInputs: Record<string, unknown> = {}
  const scriptKeys = ["script", ...scriptAliases].filter((key) => key in rawApp)
  if (scriptKeys.length > 1) {
    problems.push({
      field: joinPath(at, scriptKeys[1]!),
      value: rawApp[scriptKeys[1]!],
      message: `${scriptKeys.map((key) => `"${key}"`).join(" and ")} both give the app's command (PM2 reads ${scriptKeys
        .slice(1)
        .map((key) => `"${key}"`)
        .join(" and ")} as "script")`,
      suggestion: `keep one of ${scriptKeys.join(", ")}`
    })
  }
  for (const [key, value] of Object.entries(rawApp)) {
    const alias = pm2Aliases[key]
    if (key in pm2IgnoredAppKeys) {
      // Said once per file, whichever app sets it: the reason is the same for all.
      const warning = `${key} has no effect in pmfx: ${pm2IgnoredAppKeys[key]}`
      if (!warnings.includes(warning)) warnings.push(warning)
    } else if (alias !== undefined) {
      if (alias === "script") {
        // With two of them, the conflict is reported above; the first still names the app.
        if (key === scriptKeys[0]) input.script = value
      } else if (alias in rawApp) warnings.push(`${joinPath(at, key)} is ignored: ${alias} is also set`)
      else input[alias] = value
    } else if (key === "log" && typeof value === "string") {
      // PM2's spelling of log_file.
      if ("log_file" in rawApp) warnings.push(`${joinPath(at, key)} is ignored: log_file is also set`)
      else input.log_file = value
    } else if (key === "watch_options") {
      input[key] = honouredWatchOptions(value, joinPath(at, key), warnings)
    } else if (ENV_BLOCK.test(key) && key !== "env_file") {
      envBlockInputs[ENV_BLOCK.exec(key)![1]!] = value
    } else {
      input[key] = value
    }
  }

  // A difference kept on purpose (README, "Coming from PM2"): said where a file may rely on PM2's way.
  if (typeof input.cwd === "string" && !path.isAbsolute(input.cwd.trim()) && !/^\.\/?$/.test(input.cwd.trim())) {
    warnings.push(
      `${joinPath(at, "cwd")} "${input.cwd}" is relative: pmfx resolves it from the ecosystem file's folder, PM2 from the folder you run pm2 in; write an absolute path if the file relied on that`
    )
  }

  const execMode = execModeWarning(input, at)
  if (execMode !== undefined) warnings.push(execMode)

  const envBlocks: Record<string, Record<string, string>> = {}
  for (const [name, value] of Object.entries(envBlockInputs)) {
    const block = decodeAll(EnvMap, value, joinPath(at, `env_${name}`), [])
    problems.push(...block.problems)
    if (block.value !== undefined) envBlocks[name] = block.value
  }

  // depends_on is read entry by entry, each problem at its own path (dependsOnSetting.ts).
  const { depends_on: dependsOnInput, ...settingsInput } = input
  const dependsOn = dependsOnInput === undefined ? undefined : readDependsOn(dependsOnInput, joinPath(at, "depends_on"))
  if (dependsOn !== undefined) {
    findings.unknown(dependsOn.unknownKeys)
    problems.push(...dependsOn.problems)
  }
  const decoded = decodeAll(AppSettings, settingsInput, at, appKeys)
  findings.unknown(decoded.unknownKeys)
  const settings =
    decoded.value === undefined
      ? undefined
      : dependsOn === undefined
        ? decoded.value
        : { ...decoded.value, depends_on: dependsOn.entries }
  if (settings === undefined) {
    findings.problems.push(...problems, ...decoded.problems)
    return { identity: identityOf(input, dependsOn?.names ?? []) }
  }
  if (settings.ready_log_line !== undefined) {
    const refused = readyLogLineProblem(settings.ready_log_line, joinPath(at, "ready_log_line"))
    if (refused !== undefined) problems.push(refused)
  }
  const name = settings.name ?? defaultAppName(settings.script)

  problems.push(...settingProblems(settings, input, at, options.cpus))
  findings.problems.push(...problems)
  return { app: { name, settings, envBlocks } }
}
