/**
 * YAML for readers of YAML 1.1 as well as 1.2. The `yaml` package writes YAML 1.2, where `on`,
 * `no` or `4000:4000` are plain strings; but kubectl (sigs.k8s.io/yaml, go-yaml v2) and Python
 * readers read YAML 1.1, where `on`/`off`/`yes`/`no`/`y`/`n` are booleans — a ConfigMap value `on`
 * is then refused (data must be strings) and compose's `restart: no` becomes `false` — and
 * `4000:4000` is a base-60 number. Such strings are written double-quoted, which every reader
 * reads back as the same string.
 */
import { type Document, isScalar, visit } from "yaml"

const YAML11_BOOLEAN = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/

/** Whether a YAML 1.1 reader would read this plain string as something else than a string. */
const ambiguousInYaml11 = (value: string): boolean =>
  YAML11_BOOLEAN.test(value) || (/^[\d.:-]+$/.test(value) && value.includes(":"))

/** Quotes, in place, every string value of `document` that YAML 1.1 would read as a boolean or a number. */
export const quoteForYaml11 = (document: Document): Document => {
  visit(document, {
    Scalar(key, node) {
      if (key !== "key" && isScalar(node) && typeof node.value === "string" && ambiguousInYaml11(node.value))
        node.type = "QUOTE_DOUBLE"
    }
  })
  return document
}
