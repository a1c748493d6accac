/** Sizes as users write them: `100K`, `512M`, `1G` (powers of 1024); a bare number is bytes. */
import { Either, Schema } from "effect"
import { humanBytes } from "../shared/humanBytes"
import { describe, fromUnknown } from "./codec"

const UNIT_BYTES = { b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 } as const
const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(?:([kmgt])(?:ib?|b)?|b)?$/i

export const sizeHint = "a size like 100K, 512M or 1G (a bare number is bytes)"

export const parseSize = (input: unknown): Either.Either<number, string> => {
  if (typeof input === "number") {
    return Number.isInteger(input) && input >= 0
      ? Either.right(input)
      : Either.left(`${String(input)} is not ${sizeHint}`)
  }
  if (typeof input !== "string") return Either.left(`expected ${sizeHint}, got ${describe(input)}`)
  const match = SIZE_PATTERN.exec(input.trim())
  if (match === null) return Either.left(`"${input}" is not ${sizeHint}`)
  const unit = (match[2]?.toLowerCase() ?? "b") as keyof typeof UNIT_BYTES
  if (unit === "b" && !Number.isInteger(Number(match[1])))
    return Either.left(`"${input}" is not a whole number of bytes`)
  return Either.right(Math.round(Number(match[1]) * UNIT_BYTES[unit]))
}

/** The shortest exact spelling: 536870912 → "512M". */
export const formatSize = (bytes: number): string => {
  for (const unit of ["t", "g", "m", "k"] as const) {
    if (bytes >= UNIT_BYTES[unit] && bytes % UNIT_BYTES[unit] === 0)
      return `${bytes / UNIT_BYTES[unit]}${unit.toUpperCase()}`
  }
  return `${bytes}`
}

/** For people: 1536 → "1.5 KB" (src/shared/humanBytes.ts, which has no imports). */
export { humanBytes } from "../shared/humanBytes"

/**
 * Two different sizes for people, with as many decimals (up to 3) as it takes for them to read
 * differently — "1.0 GB, above 1.0 GB" says nothing — and in bytes when even that is not enough.
 */
export const distinctSizes = (a: number, b: number): readonly [string, string] => {
  for (const decimals of [1, 2, 3]) {
    const pair = [humanBytes(a, decimals), humanBytes(b, decimals)] as const
    if (pair[0] !== pair[1] || a === b) return pair
  }
  return [`${a} B`, `${b} B`]
}

export const SizeBytes = fromUnknown(Schema.Number, parseSize, { identifier: "Size", description: sizeHint })

/** A size from `min` to `max` bytes, both included. */
export const SizeBetween = (min: number, max: number) =>
  fromUnknown(
    Schema.Number,
    (input) =>
      Either.flatMap(parseSize(input), (bytes) =>
        bytes < min
          ? Either.left(`${formatSize(bytes)} is below the minimum ${formatSize(min)}`)
          : bytes > max
            ? Either.left(`${formatSize(bytes)} is above the maximum ${formatSize(max)}`)
            : Either.right(bytes)
      ),
    { identifier: `SizeFrom${min}To${max}`, description: `${sizeHint}, from ${formatSize(min)} to ${formatSize(max)}` }
  )
