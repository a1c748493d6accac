/**
 * `pmfx export kubernetes` (docs/export.md, "Kubernetes"): per app a Deployment (a Job when the app
 * is not restarted), a Service when it has a port, a ConfigMap for its environment; what has no
 * counterpart becomes a `pmfx.dev/…` annotation and a warning. One multi-document YAML stream.
 */
import { Document } from "yaml"
import type { AppDefinition } from "../domain/AppDefinition"
import { dependencyWait } from "./dependencyWait"
import type { ExportOptions } from "./exportTarget"
import type { PortableApp } from "./portableApp"
import { portableId, seconds } from "./portableApp"
import { unmappedSettings } from "./unmappedSettings"
import { quoteForYaml11 } from "./yaml11Safe"

type KubeObject = Record<string, unknown>

const dollarSafe = (word: string): string => word.replace(/\$\(/g, "$$$$(")

/** The name part of an annotation key: at most 63 of [A-Za-z0-9._-], beginning and ending alphanumeric. */
const annotationName = (key: string): string =>
  key
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, "") || "note"

/** A memory quantity: the largest binary unit that divides the bytes exactly. */
export const memoryQuantity = (bytes: number): string => {
  for (const [unit, size] of [
    ["Gi", 1024 ** 3],
    ["Mi", 1024 ** 2],
    ["Ki", 1024]
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`
  }
  return String(bytes)
}

/** The variables of the ConfigMap: env_file, then env over it, then PORT (as pmfx sets it). */
export const containerEnvironment = (portable: PortableApp): Record<string, string> => ({
  ...(portable.envFile?.vars ?? {}),
  ...portable.app.env,
  ...(portable.port === null ? {} : { PORT: String(portable.port.first) })
})

const probeAction = (portable: PortableApp): KubeObject | null => {
  const check = portable.healthCheck
  if (check === null) return portable.port === null ? null : { tcpSocket: { port: portable.port.first } }
  if (check.kind === "exec") return { exec: { command: [check.command] } }
  return {
    httpGet: {
      path: check.path,
      port: check.port,
      scheme: check.scheme,
      ...(check.host === null ? {} : { host: check.host })
    }
  }
}

/** Liveness and readiness from health_check; a startup probe that allows listen_timeout (or min_uptime) to come up. */
const probes = (portable: PortableApp): KubeObject => {
  const action = probeAction(portable)
  if (action === null) return {}
  const { app, healthTiming } = portable
  const startup = {
    ...action,
    periodSeconds: 1,
    failureThreshold: seconds(Math.max(app.listen_timeout, app.min_uptime))
  }
  if (healthTiming === null) return { readinessProbe: { ...action, periodSeconds: 5 }, startupProbe: startup }
  // pmfx lets a health check fail `retries` times, `interval` apart, before it acts: the start gets as long.
  startup.failureThreshold += healthTiming.retries * healthTiming.interval
  const timed = {
    ...action,
    periodSeconds: healthTiming.interval,
    timeoutSeconds: healthTiming.timeout,
    failureThreshold: healthTiming.retries
  }
  return {
    livenessProbe: timed,
    readinessProbe: timed,
    startupProbe: { ...startup, timeoutSeconds: healthTiming.timeout }
  }
}

const securityContext = (app: AppDefinition, notes: Array<[string, string]>): KubeObject => {
  const context: KubeObject = {}
  if (app.user !== null) {
    if (/^\d+$/.test(app.user)) context.runAsUser = Number(app.user)
    else
      notes.push([
        "user",
        `the user name ${app.user} has no counterpart in a Pod; set securityContext.runAsUser to its uid`
      ])
  }
  if (app.group !== null) {
    if (/^\d+$/.test(app.group)) context.runAsGroup = Number(app.group)
    else
      notes.push([
        "group",
        `the group name ${app.group} has no counterpart in a Pod; set securityContext.runAsGroup to its gid`
      ])
  }
  if (app.stop_exit_codes.length > 0)
    notes.push([
      "stop_exit_codes",
      `exit codes ${app.stop_exit_codes.join(", ")} are restarted like any exit; a Deployment cannot exempt codes`
    ])
  if (app.umask !== null)
    notes.push(["umask", `umask ${app.umask} has no counterpart in a Pod; set it in the image's entry point`])
  return Object.keys(context).length === 0 ? {} : { securityContext: context }
}

const renderApp = (
  portable: PortableApp,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
): { readonly objects: ReadonlyArray<KubeObject>; readonly warnings: ReadonlyArray<string> } => {
  const { app, id } = portable
  const notes: Array<[string, string]> = unmappedSettings(portable, "kubernetes").map(({ key, note }) => [key, note])
  const labels = {
    "app.kubernetes.io/name": id,
    ...(portableId(app.namespace) === "" ? {} : { "pmfx.dev/namespace": portableId(app.namespace) })
  }
  const env = containerEnvironment(portable)
  const configMap =
    Object.keys(env).length === 0
      ? null
      : { apiVersion: "v1", kind: "ConfigMap", metadata: { name: `${id}-env`, labels }, data: env }

  const initContainers: Array<KubeObject> = []
  for (const dependency of app.depends_on) {
    const wait = dependencyWait(portable, dependency, byName.get(dependency.name))
    if (wait._tag === "Unrenderable") notes.push([`depends_on.${dependency.name}`, wait.note])
    else {
      if (dependency.condition === "log_ready")
        notes.push([
          `depends_on.${dependency.name}`,
          `log_ready has no counterpart: ${id} waits until ${dependency.name} answers on its port instead`
        ])
      initContainers.push({ name: wait.name, image: options.waitImage, command: ["sh", "-c", wait.script] })
    }
  }

  const container: KubeObject = {
    name: id,
    image: options.image,
    // The kubelet expands $(VAR) in command and args; $$( keeps the app's own text.
    command: [dollarSafe(portable.argv[0]!)],
    ...(portable.argv.length > 1 ? { args: portable.argv.slice(1).map(dollarSafe) } : {}),
    workingDir: portable.cwd,
    ...(configMap === null ? {} : { envFrom: [{ configMapRef: { name: configMap.metadata.name } }] }),
    ...(portable.port === null
      ? {}
      : { ports: [{ name: "app", containerPort: portable.port.first, protocol: "TCP" }] }),
    ...(app.max_memory_restart === null
      ? {}
      : { resources: { limits: { memory: memoryQuantity(app.max_memory_restart) } } }),
    ...probes(portable),
    ...securityContext(app, notes)
  }
  const podSpec: KubeObject = {
    ...(initContainers.length === 0 ? {} : { initContainers }),
    containers: [container],
    terminationGracePeriodSeconds: seconds(app.kill_timeout, 0)
  }
  const annotations: Record<string, string> = {
    "pmfx.dev/app": app.name,
    ...(app.depends_on.length === 0
      ? {}
      : { "pmfx.dev/depends-on": app.depends_on.map((d) => `${d.name} (${d.condition})`).join(", ") }),
    ...Object.fromEntries(notes.map(([key, note]) => [`pmfx.dev/${annotationName(key)}`, note]))
  }
  const metadata = { name: id, labels, annotations }
  const template = { metadata: { labels }, spec: podSpec }
  const workload: KubeObject = app.autorestart
    ? {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata,
        spec: {
          replicas: app.autostart ? app.instances : 0,
          minReadySeconds: Math.floor(app.min_uptime / 1000),
          selector: { matchLabels: { "app.kubernetes.io/name": id } },
          template
        }
      }
    : {
        // autorestart: false — the app runs once: a Job that is not retried.
        apiVersion: "batch/v1",
        kind: "Job",
        metadata,
        spec: {
          ...(app.autostart ? {} : { suspend: true }),
          parallelism: app.instances,
          completions: app.instances,
          backoffLimit: 0,
          template: { ...template, spec: { ...podSpec, restartPolicy: "Never" } }
        }
      }
  const service =
    portable.port === null
      ? null
      : {
          apiVersion: "v1",
          kind: "Service",
          metadata: { name: id, labels },
          spec: {
            selector: { "app.kubernetes.io/name": id },
            ports: [{ name: "app", port: portable.port.first, targetPort: portable.port.first, protocol: "TCP" }]
          }
        }
  return {
    objects: [configMap, workload, service].filter((object): object is KubeObject => object !== null),
    warnings: notes.map(([key, note]) => `${app.name}: ${key}: ${note}`)
  }
}

/** Every object of the export, in apply order (ConfigMaps before the workloads that read them). */
export const kubernetesObjects = (
  apps: ReadonlyArray<PortableApp>,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
) => {
  const rendered = apps.map((portable) => renderApp(portable, byName, options))
  return { objects: rendered.flatMap((r) => r.objects), warnings: rendered.flatMap((r) => r.warnings) }
}

export const renderKubernetes = (
  apps: ReadonlyArray<PortableApp>,
  byName: ReadonlyMap<string, PortableApp>,
  options: ExportOptions
) => {
  const { objects, warnings } = kubernetesObjects(apps, byName, options)
  const header = [
    `# Written by \`pmfx export kubernetes\` from ${options.sourceName}; apply with \`kubectl apply -f kubernetes.yaml\`.`,
    `# Every app runs in the image ${options.image} (--image), with the project folder at ${options.workdir} (--workdir).`,
    "# Settings with no Kubernetes counterpart are pmfx.dev/ annotations (docs/export.md)."
  ].join("\n")
  const content = `${header}\n${objects.map((object) => `---\n${quoteForYaml11(new Document(object, { aliasDuplicateObjects: false })).toString({ lineWidth: 0 })}`).join("")}`
  return { files: [{ path: "kubernetes.yaml", content }], warnings }
}
