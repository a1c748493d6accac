/**
 * Writes the Prometheus text exposition format, version 0.0.4 (docs/metrics.md): one `# HELP` and
 * one `# TYPE` line per family, then its samples. Label values escape `\`, `"` and newlines as the
 * format asks; HELP text escapes `\` and newlines. Everything else (unicode included) is written as
 * UTF-8, which the format allows in label values.
 */

export type MetricType = "counter" | "gauge"

export type Labels = Readonly<Record<string, string>>

export interface Sample {
  /**
   * The series' labels. Rendered once per object and render call: families that share one
   * object per instance (name, namespace, instance) escape those values once, not once per family.
   */
  readonly labels: Labels
  /** Labels after `labels` (a one-hot `status`, a `stream`), when the series has them; cached like `labels`. */
  readonly extra?: Labels
  readonly value: number
}

export interface Family {
  /** Counters end in `_total` (checked by `render`). */
  readonly name: string
  readonly help: string
  readonly type: MetricType
  readonly samples: ReadonlyArray<Sample>
}

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const NEEDS_ESCAPE = /[\\"\n]/

export const escapeLabelValue = (value: string): string =>
  NEEDS_ESCAPE.test(value) ? value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n") : value

const escapeHelp = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

/** Go's float formatting as Prometheus reads it: `NaN`, `+Inf`, `-Inf`, else the shortest decimal. */
export const formatValue = (value: number): string => {
  if (Number.isNaN(value)) return "NaN"
  if (value === Infinity) return "+Inf"
  if (value === -Infinity) return "-Inf"
  return String(value)
}

/** Label names already checked (a handful, the same at every scrape). */
const validLabelNames = new Set<string>()

const checkLabelName = (key: string, family: string): void => {
  if (validLabelNames.has(key)) return
  if (!LABEL_NAME.test(key) || key.startsWith("__"))
    throw new Error(`invalid label name ${JSON.stringify(key)} on ${family}`)
  validLabelNames.add(key)
}

/** `k="v",k2="v2"` (no braces), label names checked. */
const renderPairs = (labels: Labels, family: string): string => {
  let out = ""
  for (const key in labels) {
    checkLabelName(key, family)
    out += `${out === "" ? "" : ","}${key}="${escapeLabelValue(labels[key]!)}"`
  }
  return out
}

/**
 * The exposition of `families`, in order. A family with no sample still gets its HELP and TYPE
 * lines (a scraper then knows the metric exists). A bad metric or label name is a bug in the
 * caller, so it throws rather than writing a body Prometheus would reject whole.
 */
export const render = (families: ReadonlyArray<Family>): string => {
  const rendered = new WeakMap<Labels, string>()
  let out = ""
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`)
    if (family.type === "counter" && !family.name.endsWith("_total"))
      throw new Error(`counter ${family.name} must end in _total`)
    out += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`
    for (const sample of family.samples) {
      let pairs = rendered.get(sample.labels)
      if (pairs === undefined) {
        pairs = renderPairs(sample.labels, family.name)
        rendered.set(sample.labels, pairs)
      }
      if (sample.extra !== undefined) {
        let extra = rendered.get(sample.extra)
        if (extra === undefined) {
          extra = renderPairs(sample.extra, family.name)
          rendered.set(sample.extra, extra)
        }
        pairs = pairs === "" ? extra : `${pairs},${extra}`
      }
      out += `${family.name}${pairs === "" ? "" : `{${pairs}}`} ${formatValue(sample.value)}\n`
    }
  }
  return out
}
