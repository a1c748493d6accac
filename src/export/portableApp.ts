/**
 * One resolved app as every export target sees it (docs/export.md): a name the engines accept, the
 * argument vector with no host-specific interpreter path, paths moved from the project folder to
 * `--workdir`, the port, the health check — or the problems that keep the app from being exported,
 * each naming the app and the field, with what to do.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Either } from "effect"
import type { AppDefinition } from "../domain/AppDefinition"
import type { ConfigProblem } from "../domain/errors"
import { isNodeInterpreter } from "../domain/nodeProgram"
import { parsePort } from "../domain/Port"
import { parseEnvFile } from "../config/parseEnvFile"
import { shellArgs } from "../supervisor/commandLine"
import type { ExportOptions } from "./exportTarget"

export type PortableHealthCheck =
  | {
      readonly kind: "http"
      readonly scheme: "HTTP" | "HTTPS"
      /** Null when the URL names this machine (the app's own container or host). */
      readonly host: string | null
      readonly port: number
      /** Path and query. */
      readonly path: string
      readonly url: string
    }
  | { readonly kind: "exec"; readonly command: string }

export interface PortableApp {
  readonly app: AppDefinition
  /** A DNS-1123 label made from the app's name: the Deployment, service and unit name. */
  readonly id: string
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  /** The env_file on the target, and its variables read now (the ConfigMap holds them). */
  readonly envFile: {
    readonly targetPath: string
    readonly hostPath: string
    readonly vars: Readonly<Record<string, string>>
  } | null
  /** The app's port, or its range (instance i gets first + i). */
  readonly port: { readonly first: number; readonly last: number } | null
  readonly healthCheck: PortableHealthCheck | null
  /** The health check's timing, in whole seconds (at least 1). */
  readonly healthTiming: { readonly interval: number; readonly timeout: number; readonly retries: number } | null
}

/** Interpreters by extension, by name: the target's PATH finds them (pmfx uses its own Node for `.js`). */
const interpreterByExtension: Readonly<Record<string, string>> = {
  ".js": "node",
  ".mjs": "node",
  ".cjs": "node",
  ".ts": "tsx",
  ".mts": "tsx",
  ".py": "python3",
  ".sh": "bash",
  ".rb": "ruby",
  ".pl": "perl",
  ".php": "php"
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0"])

/** Whole seconds, at least `min`. */
export const seconds = (ms: number, min = 1): number => Math.max(min, Math.ceil(ms / 1000))

/**
 * A DNS-1035 label (Kubernetes names — a Service's must start with a letter —, compose services,
 * unit names): lower case letters, digits and dashes, a letter first (`2fa` → `app-2fa`).
 */
export const portableId = (name: string): string => {
  const label = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-+|-+$/g, "")
  return (/^[0-9]/.test(label) ? `app-${label}` : label).slice(0, 63).replace(/-+$/, "")
}

const isExecutable = (file: string): boolean => {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

type Problem = Omit<ConfigProblem, "field"> & { readonly key: string }

export const portableApp = (
  app: AppDefinition,
  index: number,
  options: ExportOptions
): Either.Either<PortableApp, ReadonlyArray<ConfigProblem>> => {
  const problems: Array<Problem> = []
  const fail = (key: string, value: unknown, message: string, suggestion: string) =>
    problems.push({ key, value, message: `cannot export "${app.name}" to ${options.target}: ${message}`, suggestion })
  const container = options.target !== "systemd"

  /** A host path on the target: under the project folder it moves to --workdir; elsewhere it stays for systemd only. */
  const targetPath = (key: string, hostPath: string): string => {
    const relative = path.relative(options.projectDir, hostPath)
    if (relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))) {
      return relative === "" ? options.workdir : path.posix.join(options.workdir, ...relative.split(path.sep))
    }
    if (!container) return hostPath
    fail(
      key,
      hostPath,
      `${hostPath} is outside the project folder ${options.projectDir}, which is what the image holds at ${options.workdir}`,
      `move it under ${options.projectDir}, or give --root a folder that holds it (the folder your image holds at ${options.workdir})`
    )
    return hostPath
  }

  const id = portableId(app.name)
  if (id === "")
    fail(
      "name",
      app.name,
      "the name has no letter or digit to make a Kubernetes, compose or systemd name from",
      "give the app a name with letters or digits"
    )

  const cwd = targetPath("cwd", app.cwd)
  const argv = commandFor(app, targetPath, fail)

  let port: PortableApp["port"] = null
  if (app.port !== null) {
    const spec = parsePort(app.port)
    if (Either.isRight(spec)) {
      if (spec.right._tag === "Auto")
        fail(
          "port",
          app.port,
          "an automatic port is chosen by the pmfx daemon when the app starts; no engine can pick it the same way",
          "write a fixed port (3000) or a range with one port per instance (3000-3003)"
        )
      else
        port =
          spec.right._tag === "Single"
            ? { first: spec.right.port, last: spec.right.port }
            : { first: spec.right.first, last: spec.right.last }
    }
  }

  let envFile: PortableApp["envFile"] = null
  if (app.env_file !== null) {
    const text = readText(app.env_file)
    const parsed = text === undefined ? undefined : parseEnvFile(text)
    if (parsed === undefined || Either.isLeft(parsed))
      fail(
        "env_file",
        app.env_file,
        `cannot read ${app.env_file} as KEY=value lines`,
        "fix the file or the path (`pmfx validate` shows the problem)"
      )
    else envFile = { targetPath: targetPath("env_file", app.env_file), hostPath: app.env_file, vars: parsed.right }
  }

  if (options.target === "kubernetes") {
    for (const key of [...Object.keys(app.env), ...Object.keys(envFile?.vars ?? {})]) {
      if (!/^[-._a-zA-Z0-9]+$/.test(key))
        fail(
          `env.${key}`,
          key,
          `the variable name ${JSON.stringify(key)} cannot be a ConfigMap key (letters, digits, -, _ and . only)`,
          "rename the variable"
        )
    }
  }
  if (options.target === "systemd" && app.exec_mode === "cluster" && app.instances > 1) {
    fail(
      "exec_mode",
      app.exec_mode,
      `cluster mode shares one port between ${app.instances} workers of a pmfx cluster primary; separate units cannot share it`,
      "export it to kubernetes or compose (each replica has its own address), set instances: 1, or run it under pmfx itself (`pmfx startup`)"
    )
  }
  if (options.target === "systemd" && envFile !== null) {
    // systemd lets EnvironmentFile= override Environment=; pmfx lets env override env_file.
    for (const key of Object.keys(app.env)) {
      if (key in envFile.vars)
        fail(
          `env.${key}`,
          app.env[key],
          `${key} is set both in env and in env_file; in a unit the env_file would win, in pmfx env wins`,
          `keep ${key} in one of them`
        )
    }
  }

  let healthCheck: PortableHealthCheck | null = null
  const health = app.health_check
  if (health !== null && health.enabled) {
    if (health.check_type === "script" && health.script !== null)
      healthCheck = { kind: "exec", command: targetPath("health_check.script", health.script) }
    if (health.check_type === "http" && health.url !== null) {
      const written = port === null ? health.url : health.url.replace(/\{port\}/g, String(port.first))
      let url: URL | undefined
      try {
        url = new URL(written)
      } catch {
        url = undefined
      }
      if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
        fail(
          "health_check.url",
          health.url,
          `${written} is not an http(s) URL`,
          "write the URL the check calls, like http://127.0.0.1:{port}/health"
        )
      else {
        const scheme = url.protocol === "https:" ? "HTTPS" : "HTTP"
        const urlPort = url.port === "" ? (scheme === "HTTPS" ? 443 : 80) : Number(url.port)
        healthCheck = {
          kind: "http",
          scheme,
          host: LOOPBACK.has(url.hostname) ? null : url.hostname,
          port: urlPort,
          path: `${url.pathname}${url.search}`,
          url: url.toString()
        }
      }
    }
  }
  const healthTiming =
    health === null || !health.enabled
      ? null
      : { interval: seconds(health.interval), timeout: seconds(health.timeout), retries: health.retries }

  if (problems.length > 0)
    return Either.left(problems.map(({ key, ...rest }) => ({ field: `apps[${index}].${key}`, ...rest })))
  return Either.right({ app, id, argv, cwd, envFile, port, healthCheck, healthTiming })
}

const readText = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, "utf8")
  } catch {
    return undefined
  }
}

/**
 * The argument vector, as pmfx builds it (src/supervisor/commandLine.ts) but portable: the shell or
 * interpreter by name (the target's PATH finds it), the script at its place under --workdir.
 */
const commandFor = (
  app: AppDefinition,
  targetPath: (key: string, hostPath: string) => string,
  fail: (key: string, value: unknown, message: string, suggestion: string) => void
): ReadonlyArray<string> => {
  if (app.shell !== null) return [app.shell, ...shellArgs(app.shell, app.script, app.args)]
  const flags =
    app.source_map_support === true && !app.interpreter_args.includes("--enable-source-maps")
      ? ["--enable-source-maps", ...app.interpreter_args]
      : app.interpreter_args
  if (app.interpreter !== null) {
    const interpreter =
      app.interpreter === process.execPath || (path.isAbsolute(app.interpreter) && isNodeInterpreter(app.interpreter))
        ? "node"
        : app.interpreter
    const script = path.isAbsolute(app.script) ? targetPath("script", app.script) : app.script
    return [interpreter, ...(isNodeInterpreter(interpreter) ? flags : app.interpreter_args), script, ...app.args]
  }
  if (!path.isAbsolute(app.script)) {
    // A command found in the target's PATH; node_args only make sense when it is node itself.
    if (app.interpreter_args.length > 0 && !isNodeInterpreter(app.script))
      fail(
        "interpreter_args",
        app.interpreter_args,
        `interpreter flags, but the command ${app.script} runs on its own`,
        "put the flags in `args`, or set `interpreter`"
      )
    return [app.script, ...(isNodeInterpreter(app.script) ? app.interpreter_args : []), ...app.args]
  }
  const script = targetPath("script", app.script)
  if (!fs.existsSync(app.script)) {
    fail(
      "script",
      app.script,
      `${app.script} does not exist`,
      "check `script` (relative paths start from the app's cwd)"
    )
    return [script]
  }
  const interpreter = interpreterByExtension[path.extname(app.script).toLowerCase()]
  if (interpreter !== undefined)
    return [interpreter, ...(interpreter === "node" ? flags : app.interpreter_args), script, ...app.args]
  if (!isExecutable(app.script)) {
    fail(
      "script",
      app.script,
      `${path.basename(app.script)} is not executable and its extension names no interpreter, so there is no command to run it`,
      "set `interpreter` (like bash or python3), or chmod +x the file and give it a #! line"
    )
  } else if (app.interpreter_args.length > 0) {
    fail(
      "interpreter_args",
      app.interpreter_args,
      `interpreter flags, but ${path.basename(app.script)} runs on its own`,
      "put the flags in `args`, or set `interpreter`"
    )
  }
  return [script, ...app.args]
}
