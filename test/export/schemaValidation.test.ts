/**
 * `pmfx export` output checked offline against the engines' own published schemas (docs/export.md):
 * Kubernetes objects with kubernetes-models (the OpenAPI schemas of Kubernetes), the compose file
 * with the Compose Specification's JSON schema through ajv, systemd units with `systemd-analyze
 * verify`. One project uses every mapped setting; the examples are checked too.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import Ajv2019 from "ajv/dist/2019"
import { ConfigMap } from "kubernetes-models/v1/ConfigMap"
import { Service } from "kubernetes-models/v1/Service"
import { Deployment } from "kubernetes-models/apps/v1/Deployment"
import { Job } from "kubernetes-models/batch/v1/Job"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { parse, parseAllDocuments } from "yaml"
import composeSchema from "./schemas/compose-spec.json"
import { makeSandbox, type Sandbox } from "../support/cli"
import { filesUnder, systemdAnalyze, writeRichProject } from "./exportFixture"

const examples = path.resolve(__dirname, "../../examples")

let sandbox: Sandbox
beforeEach(() => {
  sandbox = makeSandbox()
})
afterEach(() => sandbox.cleanup())

const exported = (args: ReadonlyArray<string>) => {
  const result = sandbox.pmfx(["export", ...args])
  expect(result.stderr.split("\n").filter((line) => /error|INVALID|FILE_ERROR/.test(line))).toEqual([])
  expect(result.code).toBe(0)
  return result
}

type KubeObject = {
  readonly kind: string
  readonly metadata: { readonly name: string; readonly annotations?: Record<string, string> }
  readonly spec?: any
}

/** Validates each object with the model of its kind; throws with the schema's message when invalid. */
const validateKubernetes = (text: string): Array<KubeObject> => {
  const objects = parseAllDocuments(text).map((doc) => doc.toJS() as KubeObject)
  const models: Record<string, new (data: any) => { validate(): void }> = { ConfigMap, Service, Deployment, Job }
  for (const object of objects) {
    const Model = models[object.kind]
    expect(Model, `a model for ${object.kind}`).toBeDefined()
    new Model!(object).validate()
  }
  return objects
}

const ajv = new Ajv2019({ strict: false, allErrors: true })
// The schema's own formats, as the specification defines them.
ajv.addFormat("duration", /^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$/)
ajv.addFormat("ports", /^((\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/)
ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp))?$/)
/**
 * The file names its draft as "http://json-schema.org/draft/2019-09/schema#", a spelling ajv does
 * not know (Ajv2019 validates by that draft anyway), and labels its parts with draft-04's `id`
 * (plain strings like "#/definitions/service", never referenced): both are left out, nothing else.
 */
const withoutIds = (node: unknown): unknown =>
  Array.isArray(node)
    ? node.map(withoutIds)
    : typeof node === "object" && node !== null
      ? Object.fromEntries(
          Object.entries(node)
            .filter(([key, value]) => !(key === "id" && typeof value === "string") && key !== "$schema")
            .map(([key, value]) => [key, withoutIds(value)])
        )
      : node
const validateCompose = ajv.compile(withoutIds(composeSchema) as object)

const expectValidCompose = (text: string) => {
  const document = parse(text)
  const valid = validateCompose(document)
  expect(validateCompose.errors ?? []).toEqual([])
  expect(valid).toBe(true)
  return document
}

/** `systemd-analyze verify` on each unit: exit 0 and nothing said (it only warns on a bad line). */
const expectVerifiedUnits = (dir: string) => {
  const units = fs.readdirSync(dir).filter((name) => name.endsWith(".service"))
  expect(units.length).toBeGreaterThan(0)
  for (const unit of units) {
    const result = spawnSync("systemd-analyze", ["verify", path.join(dir, unit)], {
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_LOG_COLOR: "0" }
    })
    expect({ unit, code: result.status, stderr: result.stderr }).toEqual({ unit, code: 0, stderr: "" })
  }
}

describe("pmfx export kubernetes", () => {
  it("writes valid Deployments, a Job, Services and ConfigMaps for every mapped setting", () => {
    const file = writeRichProject(sandbox)
    const out = path.join(sandbox.dir, "k8s")
    const result = exported(["kubernetes", file, "-o", out, "--image", "registry.example.com/shop:1.4"])
    expect(result.stderr).toContain("Web API: watch:")
    expect(result.stderr).toContain("Web API: cron_restart:")
    const objects = validateKubernetes(fs.readFileSync(path.join(out, "kubernetes.yaml"), "utf8"))
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "ConfigMap/web-api-env",
      "Deployment/web-api",
      "Service/web-api",
      "ConfigMap/checker-env",
      "Deployment/checker",
      "Job/migrate",
      "ConfigMap/reporter-env",
      "Deployment/reporter"
    ])
    const api = objects.find((o) => o.kind === "Deployment" && o.metadata.name === "web-api")!
    const container = api.spec.template.spec.containers[0]
    expect(api.spec.replicas).toBe(3)
    expect(api.spec.minReadySeconds).toBe(4)
    expect(container.image).toBe("registry.example.com/shop:1.4")
    expect([...container.command, ...container.args]).toEqual(["node", "/app/apps/server.js"])
    expect(container.resources.limits.memory).toBe("1Gi")
    expect(container.livenessProbe).toEqual({
      httpGet: { path: "/health?deep=1", port: 4100, scheme: "HTTP" },
      periodSeconds: 5,
      timeoutSeconds: 1,
      failureThreshold: 2
    })
    expect(container.startupProbe.failureThreshold).toBe(8 + 2 * 5)
    expect(container.securityContext).toEqual({ runAsUser: 1000, runAsGroup: 1000 })
    expect(api.spec.template.spec.terminationGracePeriodSeconds).toBe(8)
    expect(api.metadata.annotations!["pmfx.dev/cron_restart"]).toContain("0 3 * * *")
    const configMap = objects.find((o) => o.metadata.name === "web-api-env") as unknown as {
      data: Record<string, string>
    }
    expect(configMap.data).toEqual({ FROM_FILE: "yes", B: "2", A: "1", QUOTED: 'say "hi" 100%', PORT: "4100" })
    const checker = objects.find((o) => o.metadata.name === "checker")!.spec.template.spec.containers[0]
    expect(checker.livenessProbe.exec.command).toEqual(["/app/apps/check.sh"])
    expect([...checker.command, ...checker.args]).toEqual(["bash", "/app/apps/check.sh", "--loop", "a b", "$$(HOME)"])
    // kill_signal has no pod-spec field: a note naming the image's STOPSIGNAL; the default says nothing.
    expect(
      objects.find((o) => o.kind === "Deployment" && o.metadata.name === "checker")!.metadata.annotations![
        "pmfx.dev/kill_signal"
      ]
    ).toContain("STOPSIGNAL SIGINT")
    expect(api.metadata.annotations!["pmfx.dev/kill_signal"]).toBeUndefined()
    const migrate = objects.find((o) => o.kind === "Job")!
    expect(migrate.spec.backoffLimit).toBe(0)
    expect(migrate.spec.template.spec.restartPolicy).toBe("Never")
    const reporter = objects.find((o) => o.metadata.name === "reporter")!
    expect(reporter.spec.replicas).toBe(0)
    expect(reporter.spec.template.spec.initContainers).toEqual([
      {
        name: "wait-for-web-api",
        image: "busybox:1.36",
        command: [
          "sh",
          "-c",
          "until wget -q -O /dev/null 'http://web-api:4100/health?deep=1'; do echo 'reporter waits for web-api'; sleep 2; done"
        ]
      }
    ])
    expect(reporter.metadata.annotations!["pmfx.dev/depends_on.migrate"]).toContain("completed_successfully")
  })

  it("fails the schema check on an object the schema refuses (the check can fail)", () => {
    expect(() =>
      validateKubernetes(
        'kind: Service\napiVersion: v1\nmetadata: {name: x}\nspec: {ports: [{port: "not a number"}]}\n'
      )
    ).toThrow(/port/)
  })

  for (const file of ["ecosystem.json", "pm2/ecosystem.config.js"]) {
    it(`writes valid objects for examples/${file}`, () => {
      const result = exported(["kubernetes", path.join(examples, file), "--root", examples, "--cpus", "2"])
      expect(validateKubernetes(result.stdout).length).toBeGreaterThan(1)
    })
  }
})

describe("pmfx export for YAML 1.1 readers", () => {
  it("kubectl (go-yaml v2) and Python read every value as written: yes, no, on, off and 4000:4000 are quoted", () => {
    const file = writeRichProject(sandbox)
    for (const target of ["kubernetes", "compose"]) {
      const text = exported([target, file, "--image", "registry.example.com/shop:1.4"]).stdout
      const as12 = parseAllDocuments(text).map((document) => document.toJS())
      const as11 = parseAllDocuments(text, { version: "1.1" }).map((document) => document.toJS())
      expect(as11).toEqual(as12)
    }
  })
})

describe("pmfx export compose", () => {
  it("writes a compose file the Compose Specification's schema accepts, for every mapped setting", () => {
    const file = writeRichProject(sandbox)
    const out = path.join(sandbox.dir, "compose")
    exported(["compose", file, "-o", out])
    const document = expectValidCompose(fs.readFileSync(path.join(out, "compose.yaml"), "utf8"))
    const api = document.services["web-api"]
    expect(api.command).toEqual(["node", "/app/apps/server.js"])
    expect(api.env_file).toEqual(["../project/app.env"])
    expect(api.ports).toEqual(["4100-4102:4100"])
    expect(api.deploy).toEqual({
      replicas: 3,
      resources: { limits: { memory: "1G" } },
      restart_policy: { condition: "on-failure", delay: "2s", max_attempts: 5, window: "4s" }
    })
    expect(api.restart).toBe("on-failure:5")
    expect(api.healthcheck.start_period).toBe("8s")
    expect(api.stop_grace_period).toBe("8s")
    expect(api.stop_signal).toBe("SIGTERM")
    expect(document.services.checker.stop_signal).toBe("SIGINT")
    expect(document.services.migrate.restart).toBe("no")
    // Compose interpolates $: the app's own are doubled.
    expect(document.services.checker.command).toEqual(["bash", "/app/apps/check.sh", "--loop", "a b", "$$(HOME)"])
    expect(document.services.checker.environment).toEqual({ PRICE: "$$5" })
    expect(document.services.reporter.depends_on).toEqual({
      "web-api": { condition: "service_healthy" },
      migrate: { condition: "service_completed_successfully" },
      checker: { condition: "service_healthy" }
    })
    expect(document.services.reporter.deploy.replicas).toBe(0)
    expect(document.services["web-api"]["x-pmfx-notes"].watch).toContain("no counterpart")
  })

  it("refuses a compose file the schema does not allow (the check can fail)", () => {
    expect(validateCompose(parse("services:\n  a:\n    deploy: {replicas: many}\n"))).toBe(false)
  })

  for (const file of ["ecosystem.json", "pm2/ecosystem.config.js"]) {
    it(`writes a valid compose file for examples/${file}`, () => {
      expectValidCompose(exported(["compose", path.join(examples, file), "--root", examples, "--cpus", "2"]).stdout)
    })
  }
})

describe("pmfx export systemd", () => {
  it.skipIf(!systemdAnalyze)(
    "writes units that systemd-analyze verify accepts (skipped when systemd-analyze is missing: apt-get install systemd)",
    () => {
      const file = writeRichProject(sandbox)
      const out = path.join(sandbox.dir, "units")
      exported(["systemd", file, "-o", out])
      expectVerifiedUnits(out)
      const files = filesUnder(out)
      const api = files["web-api@.service"]!
      for (const line of [
        "Requires=",
        "StartLimitBurst=6",
        "StartLimitIntervalSec=36",
        "Restart=always",
        "RestartSec=2s",
        "RestartPreventExitStatus=3",
        "MemoryMax=1G",
        "KillSignal=SIGTERM",
        "TimeoutStopSec=8s",
        "User=1000",
        "Group=1000",
        "UMask=0022",
        `EnvironmentFile=${path.join(sandbox.dir, "project", "app.env")}`,
        'Environment="QUOTED=say \\"hi\\" 100%%"',
        "Environment=PMFX_INSTANCE_ID=%i",
        `WorkingDirectory=${path.join(sandbox.dir, "project")}`
      ].filter((line) => line !== "Requires=")) {
        expect(api.split("\n")).toContain(line)
      }
      expect(files["web-api@2.service.d/instance.conf"]).toContain("Environment=PORT=4102")
      expect(files["reporter@1.service.d/instance.conf"]).toContain("Environment=SLOT=11")
      expect(files["reporter@.service"]).toContain(
        "Requires=web-api@0.service web-api@1.service web-api@2.service migrate.service checker.service"
      )
      expect(files["reporter@.service"]).not.toContain("WantedBy=")
      expect(files["migrate.service"]).toContain("Restart=no")
      expect(files["checker.service"]).toContain(
        "ExecStart=bash " + path.join(sandbox.dir, "project/apps/check.sh") + ' --loop "a b" $$(HOME)'
      )
      expect(files["checker.service"]).toContain("Environment=PRICE=$5")
      expect(files["checker.service"].split("\n")).toContain("KillSignal=SIGINT")
    }
  )

  it.skipIf(!systemdAnalyze)("verify reports a broken unit (the check can fail)", () => {
    const unit = sandbox.write("units/broken.service", "[Service]\nExecStart=/bin/true\nRestart=sometimes\n")
    const result = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" })
    expect(result.stderr).toContain("restart specifier")
  })

  it.skipIf(!systemdAnalyze)("writes verified units for examples/ecosystem.json", () => {
    const out = path.join(sandbox.dir, "units")
    exported(["systemd", path.join(examples, "ecosystem.json"), "-o", out, "--workdir", "/srv/pmfx-examples"])
    expectVerifiedUnits(out)
  })
})
