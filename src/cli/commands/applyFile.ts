/**
 * A whole ecosystem file in one request (docs/cli.md, "Applying a file"): `pmfx start <file>`,
 * `restart <file>`, `reload <file>` and `apply <file>` load and validate the file here — a problem
 * keeps its line and field, and nothing is sent — narrow it with `--only`, and send the resolved
 * apps to `POST /api/apply`, which plans and acts in the daemon. The answer is printed as one row
 * per app (`--json`: the answer itself); exit 9 when some app failed.
 */
import { Options } from "@effect/cli"
import { Console, Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ApplyResult } from "../../shared/ApiSchemas"
import { ConfigLoader } from "../../config/ConfigLoader"
import { looksLikeEcosystemFile } from "../../config/ConfigFormat"
import { closestKey } from "../../config/closestKey"
import { formatDuration } from "../../domain/Duration"
import { ExitCode, ProcessNotFound, ReadyTimeout } from "../../domain/errors"
import type { ApplyMode } from "../../supervisor/applyPlan"
import { CallerEnvironment } from "../CallerEnvironment"
import { withDaemon } from "../daemonCall"
import { DaemonTarget, environmentForApps } from "../DaemonTarget"
import { CliExit, failWith, printJson } from "../output"
import { renderProcessTable } from "../processTable"
import { reportReadyTimeout } from "../readyTimeout"
import { withSpinner } from "../spinner"
import { columns, style } from "../style"
import { badUsage, optionValue } from "../usage"

const NAME_LIST = /^[^,]+(,[^,]+)*$/

/** `--only a,b`: the apps of the file to apply. */
export const onlyOption = Options.text("only").pipe(
  Options.withPseudoName("a,b"),
  Options.withDescription("with an ecosystem file: apply only these apps of it (comma-separated names)"),
  Options.mapEffect(
    optionValue(
      "--only",
      (text: string) =>
        NAME_LIST.test(text.trim())
          ? Either.right(text.split(",").map((name) => name.trim()))
          : Either.left(`${JSON.stringify(text)} is not a list of names`),
      "write app names separated by commas, like --only api,worker"
    )
  ),
  Options.optional
)

/** `--update-env`: the apps start from the caller's environment from now on (PM2's meaning). */
export const updateEnvOption = Options.boolean("update-env").pipe(
  Options.withDescription(
    "give the apps this shell's environment from now on (without it they keep the one they were started with)"
  )
)

/** Whether `target` names an ecosystem file that exists (relative to the caller's folder). */
export const isEcosystemFile = (target: string, cwd: string): boolean => {
  if (!looksLikeEcosystemFile(target) || /\s/.test(target.trim())) return false
  try {
    return fs.statSync(path.resolve(cwd, target)).isFile()
  } catch {
    return false
  }
}

export interface FileRequest {
  readonly file: string
  readonly mode: ApplyMode
  /** Apps of the file to apply (empty: all of them). */
  readonly only: ReadonlyArray<string>
  /** The `env_<name>` block to select. */
  readonly envBlock: string | undefined
  /** `start --env KEY=VALUE`: variables added to each app's env. */
  readonly variables?: Readonly<Record<string, string>>
  readonly updateEnv: boolean
  readonly prune?: boolean
  readonly dryRun?: boolean
  readonly json: boolean
  /** `start --wait-ready`: wait until the apps started are ready, at most this long. */
  readonly waitReadyMs?: number | undefined
}

const resultText = (app: ApplyResult["apps"][number]): string =>
  app.ok
    ? app.restarted_instead === true
      ? style.green(process.stdout)("ok (one instance: restarted)")
      : style.green(process.stdout)("ok")
    : `${style.red(process.stdout)(app.error?.code ?? "FAILED")} ${app.error?.message ?? ""}`

const actionText = (action: string): string =>
  action === "unchanged"
    ? style.dim(process.stdout)(action)
    : action === "changed"
      ? style.yellow(process.stdout)(action)
      : action === "delete"
        ? style.red(process.stdout)(action)
        : action

/** The per-app table, the hints it calls for, and (unless a dry run) the rows. */
const renderResult = (file: string, mode: ApplyMode, result: ApplyResult): string => {
  const header = ["App", "Namespace", "Action", "Changed", "Result"].map((h) => style.bold(process.stdout)(h))
  const body = result.apps.map((app) => [
    app.name,
    app.namespace,
    actionText(app.action),
    app.changed_keys.length === 0 ? "-" : app.changed_keys.join(", "),
    resultText(app)
  ])
  const lines = [
    `${result.dry_run ? "plan for" : "applied"} ${path.basename(file)} (${mode}${result.dry_run ? ", dry run: nothing changed" : ""})`,
    ...columns([header, ...body])
  ]
  const changed = result.apps.filter((app) => app.action === "changed").map((app) => app.name)
  if (changed.length > 0) {
    lines.push(
      `${style.yellow(process.stdout)("hint")} ${changed.join(", ")} ${changed.length === 1 ? "runs" : "run"} an older definition and ${changed.length === 1 ? "was" : "were"} left running: \`pmfx reload ${file}\` (or \`restart\`, or \`apply\`, with the same --only and --env) runs the file's current definition`
    )
  }
  for (const app of result.apps) {
    const suggestion = app.error?.details.suggestion
    if (!app.ok && typeof suggestion === "string")
      lines.push(`  ${app.name}: ${style.cyan(process.stdout)("suggestion:")} ${suggestion}`)
  }
  if (!result.dry_run) lines.push(renderProcessTable(result.processes))
  return lines.join("\n")
}

/** Loads the file, applies it in one request and prints the outcome (docs/cli.md, "Applying a file"). */
export const applyFile = (request: FileRequest) =>
  Effect.gen(function* () {
    const { json } = request
    if (request.prune === true && request.only.length > 0) {
      return yield* failWith(
        badUsage(
          "--prune",
          "cannot be combined with --only: it would delete every other app of the file's namespaces",
          "apply the whole file with --prune, or leave --prune out"
        ),
        json
      )
    }
    const loader = yield* ConfigLoader
    const caller = yield* CallerEnvironment
    const loaded = yield* loader
      .loadFile(path.resolve(caller.cwd, request.file), { environment: caller.env, envName: request.envBlock })
      .pipe(Effect.catchAll((error) => failWith(error, json)))
    // On stderr, so stdout keeps its shape: text, or with --json one JSON line `{"warnings":[…]}`.
    if (json && loaded.warnings.length > 0) yield* Console.error(JSON.stringify({ warnings: loaded.warnings }))
    else
      for (const warning of loaded.warnings)
        yield* Console.error(`${style.yellow(process.stderr)("warning")} ${warning}`)
    const names = loaded.apps.map((app) => app.name)
    for (const wanted of request.only) {
      if (names.includes(wanted)) continue
      const closest = closestKey(wanted, names)
      return yield* failWith(
        new ProcessNotFound({
          message: `${loaded.file} has no app named ${JSON.stringify(wanted)}`,
          details: {
            process_id: wanted,
            suggestion:
              closest !== undefined
                ? `did you mean "${closest}"?`
                : `the file defines ${names.map((n) => JSON.stringify(n)).join(", ")}`
          }
        }),
        json
      )
    }
    const variables = request.variables ?? {}
    const apps = loaded.apps
      .filter((app) => request.only.length === 0 || request.only.includes(app.name))
      .map((app) => (Object.keys(variables).length === 0 ? app : { ...app, env: { ...app.env, ...variables } }))
    // The apps get the CLI's own environment (docs/architecture.md §4), under their env_file and env.
    const env = environmentForApps(caller.env, yield* DaemonTarget)
    const payload = {
      apps,
      mode: request.mode,
      env,
      ...(request.prune === true ? { prune: true } : {}),
      ...(request.dryRun === true ? { dry_run: true } : {}),
      ...(request.updateEnv ? { update_env: true } : {}),
      ...(request.dryRun === true ? {} : { webhooks: loaded.webhooks, alerts: loaded.alerts })
    }
    let result = yield* withDaemon(json, (api) => api.processes.apply({ payload }))
    const waitMs = request.waitReadyMs
    if (waitMs !== undefined && !result.dry_run) {
      // Apps that now run: not the ones that failed, nor those registered stopped (autostart: false).
      const registered = new Set(apps.filter((app) => !app.autostart).map((app) => app.name))
      const waited = result.apps
        .filter((app) => app.ok && app.action !== "delete" && !(app.action === "create" && registered.has(app.name)))
        .map((app) => app.name)
      if (waited.length > 0) {
        const timeout = `${waitMs}ms`
        const ready = yield* withDaemon(json, (api) =>
          withSpinner(
            `waiting for ${waited.join(", ")} to be ready (up to ${formatDuration(waitMs)})`,
            Effect.forEach(waited, (name) => api.processes.ready({ path: { id: name }, urlParams: { timeout } }), {
              concurrency: "unbounded"
            })
          ).pipe(
            // A timeout is reported with the state each instance was left in.
            Effect.catchTag("READY_TIMEOUT", (error) => Effect.succeed(error))
          )
        )
        if (ready instanceof ReadyTimeout) return yield* reportReadyTimeout(ready, json)
        result = { ...result, processes: ready.flat() }
      }
    }
    if (json) yield* printJson(result)
    else yield* Console.log(renderResult(request.file, request.mode, result))
    if (!result.success) return yield* new CliExit({ code: ExitCode.partial })
  })

/** `--only`'s names, or none. */
export const onlyNames = (only: Option.Option<ReadonlyArray<string>>): ReadonlyArray<string> =>
  Option.getOrElse(only, () => [])
