/**
 * Writes the Prometheus text exposition format, version 0.0.4 (docs/metrics.md): one `# HELP` and
 * one `# TYPE` line per family, then its samples. Label values escape `\`, `"` and newlines as the
 * format asks; HELP text escapes `\` and newlines. Everything else (unicode included) is written as
 * UTF-8, which the format allows in label values.
 */

export type MetricType = "counter" | "gauge"

export type Labels = Readonly<Record<string, string>>

export interface Sample {
  readonly labels: Labels
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

export const escapeLabelValue = (value: string): string => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")

const escapeHelp = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

/** Go's float formatting as Prometheus reads it: `NaN`, `+Inf`, `-Inf`, else the shortest decimal. */
export const formatValue = (value: number): string => {
  if (Number.isNaN(value)) return "NaN"
  if (value === Infinity) return "+Inf"
  if (value === -Infinity) return "-Inf"
  return String(value)
}

const renderLabels = (labels: Labels): string => {
  const keys = Object.keys(labels)
  if (keys.length === 0) return ""
  let out = "{"
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    out += `${i === 0 ? "" : ","}${key}="${escapeLabelValue(labels[key]!)}"`
  }
  return `${out}}`
}

/**
 * The exposition of `families`, in order. A family with no sample still gets its HELP and TYPE
 * lines (a scraper then knows the metric exists). A bad metric or label name is a bug in the
 * caller, so it throws rather than writing a body Prometheus would reject whole.
 */
export const render = (families: ReadonlyArray<Family>): string => {
  const parts: Array<string> = []
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name ${JSON.stringify(family.name)}`)
    if (family.type === "counter" && !family.name.endsWith("_total")) throw new Error(`counter ${family.name} must end in _total`)
    parts.push(`# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`)
    for (const sample of family.samples) {
      for (const key of Object.keys(sample.labels)) {
        if (!LABEL_NAME.test(key) || key.startsWith("__")) throw new Error(`invalid label name ${JSON.stringify(key)} on ${family.name}`)
      }
      parts.push(`${family.name}${renderLabels(sample.labels)} ${formatValue(sample.value)}\n`)
    }
  }
  return parts.join("")
}
