/**
 * Port settings: a single port `3000`, a consecutive range `3000-3003` (instance i gets first+i),
 * or `auto:5000-5100` (the first free port of the range, chosen when the row is first assigned).
 */
import { Either, Schema } from "effect"
import { describe, fromUnknown } from "./codec"

export type PortSpec =
  | { readonly _tag: "Single"; readonly port: number }
  | { readonly _tag: "Range"; readonly first: number; readonly last: number }
  | { readonly _tag: "Auto"; readonly first: number; readonly last: number }

export const portHint = "a port (3000), a range (3000-3003) or an automatic range (auto:5000-5100), ports 1-65535"

const PORT_PATTERN = /^(auto:)?(\d{1,5})(?:-(\d{1,5}))?$/

const validPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535

export const parsePort = (input: unknown): Either.Either<PortSpec, string> => {
  const text = typeof input === "number" ? String(input) : input
  if (typeof text !== "string") return Either.left(`expected ${portHint}, got ${describe(input)}`)
  const match = PORT_PATTERN.exec(text.trim())
  if (match === null) return Either.left(`"${text}" is not ${portHint}`)
  const auto = match[1] !== undefined
  const first = Number(match[2])
  const last = match[3] === undefined ? first : Number(match[3])
  if (!validPort(first) || !validPort(last)) return Either.left(`"${text}" is outside the port numbers 1-65535`)
  if (last < first) return Either.left(`"${text}" is a range whose last port is below its first`)
  if (auto) {
    return match[3] === undefined
      ? Either.left(`"${text}" needs a range after auto:, like auto:${first}-${Math.min(65535, first + 100)}`)
      : Either.right({ _tag: "Auto", first, last })
  }
  return Either.right(match[3] === undefined ? { _tag: "Single", port: first } : { _tag: "Range", first, last })
}

export const formatPort = (spec: PortSpec): string =>
  spec._tag === "Single"
    ? String(spec.port)
    : spec._tag === "Range"
      ? `${spec.first}-${spec.last}`
      : `auto:${spec.first}-${spec.last}`

/** How many distinct ports a setting offers. */
export const portCount = (spec: PortSpec): number => (spec._tag === "Single" ? 1 : spec.last - spec.first + 1)

/** A port setting decoded to its canonical string (`" 3000 "` and `3000` both become `"3000"`). */
export const PortSetting = fromUnknown(Schema.String, (u) => Either.map(parsePort(u), formatPort), {
  identifier: "Port",
  description: portHint
})
