/**
 * The Grafana dashboard (examples/grafana) and the Prometheus scrape config (examples/prometheus)
 * match what a real daemon exposes: every pmfx metric the dashboard queries is a family of
 * `GET /metrics`, every label it filters or groups on is a label of that family, and every family
 * is described in docs/metrics.md.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import YAML from "yaml"
import { parseExposition, type Exposition } from "../support/prometheus"
import { type Daemon, idleApp, startDaemon } from "../api/daemon"

const ROOT = path.resolve(__dirname, "../..")
const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, "examples/grafana/pmfx-dashboard.json"), "utf8"))

/** Every PromQL expression of the dashboard: panel targets and variable queries. */
const expressions = (): ReadonlyArray<string> => [
  ...dashboard.panels.flatMap((panel: { targets: Array<{ expr: string }> }) =>
    panel.targets.map((target) => target.expr)
  ),
  ...dashboard.templating.list
    .filter((variable: { type: string }) => variable.type === "query")
    .map((variable: { query: string }) => variable.query)
]

const daemons: Array<Daemon> = []
afterAll(async () => {
  for (const daemon of daemons) await daemon.stop()
})

/** A real daemon's exposition, with an app so that the per-instance families have series. */
const realExposition = async (): Promise<Exposition> => {
  const daemon = await startDaemon()
  daemons.push(daemon)
  expect(
    (
      await daemon.request(
        "POST",
        "/api/processes",
        idleApp("dash", { args: ["-e", "console.log('up'); setInterval(() => {}, 1000)"] })
      )
    ).status
  ).toBe(201)
  expect((await daemon.request("GET", "/api/processes/dash/ready?timeout=30s")).status).toBe(200)
  const reply = await daemon.request("GET", "/metrics")
  expect(reply.status, reply.raw).toBe(200)
  return parseExposition(reply.raw)
}

describe("examples", () => {
  it("the Grafana dashboard queries only metrics and labels that GET /metrics has", async () => {
    const exposition = await realExposition()
    const queried = new Set<string>()
    for (const expr of expressions()) {
      for (const [, name] of expr.matchAll(/\b(pmfx_[a-z_]+)\b/g)) queried.add(name!)
      // Label matchers inside {…} and grouping labels in by (…).
      for (const [, metric, matchers] of expr.matchAll(/\b(pmfx_[a-z_]+)\{([^}]*)\}/g)) {
        const labels = new Set(exposition.series(metric!).flatMap((series) => Object.keys(series.labels)))
        for (const [, label] of matchers!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)/g)) {
          if (label === "job") continue // Added by Prometheus itself.
          expect(labels.has(label!), `${metric} has no label ${label} (in ${expr})`).toBe(true)
        }
      }
    }
    expect(queried.size).toBeGreaterThan(10)
    for (const name of queried) expect(exposition.families.has(name), `${name} is not in GET /metrics`).toBe(true)
    // Every panel has a title and at least one query; ids are unique.
    const ids = dashboard.panels.map((panel: { id: number }) => panel.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0)
  })

  it("every family of GET /metrics is described in docs/metrics.md", async () => {
    const exposition = await realExposition()
    const doc = fs.readFileSync(path.join(ROOT, "docs/metrics.md"), "utf8")
    for (const [name, family] of exposition.families) {
      expect(doc, name).toContain(`\`${name}\``)
      expect(doc, `${name}'s type`).toMatch(new RegExp(`\`${name}\`\\s*\\|\\s*${family.type}`))
    }
  })

  it("the Prometheus config scrapes /metrics with the key as a bearer token read from a file", () => {
    const config = YAML.parse(fs.readFileSync(path.join(ROOT, "examples/prometheus/prometheus.yml"), "utf8"))
    const job = config.scrape_configs.find((scrape: { job_name: string }) => scrape.job_name === "pmfx")
    expect(job.metrics_path).toBe("/metrics")
    expect(job.authorization).toEqual({ type: "Bearer", credentials_file: "/etc/prometheus/pmfx.key" })
    expect(job.static_configs[0].targets.length).toBeGreaterThan(0)
  })
})
