/**
 * Names of rotated log files: `<file>.<YYYYMMDD-HHmmss-SSS>` (UTC, so names sort in time order
 * across daylight-saving changes), `-1`, `-2`… appended when that name is taken, and `.gz` once
 * compressed. The writer creates and prunes them; the reader lists them to read older lines.
 */
import * as fs from "node:fs"
import * as path from "node:path"

export interface RotatedFile {
  readonly path: string
  readonly compressed: boolean
  /** `YYYYMMDD-HHmmss-SSS` */
  readonly stamp: string
  /** The `-n` that made the name unique; 0 for none. */
  readonly counter: number
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0")

const stampOf = (date: Date): string =>
  `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}-` +
  `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}-${pad(date.getUTCMilliseconds(), 3)}`

/** The suffix a compression writes to before it is renamed to `.gz`, so readers never see half a file. */
export const PARTIAL_SUFFIX = ".tmp"

const taken = (candidate: string): boolean =>
  fs.existsSync(candidate) || fs.existsSync(`${candidate}.gz`) || fs.existsSync(`${candidate}.gz${PARTIAL_SUFFIX}`)

/**
 * The last counter used for each stamp. Several rotations can fall in one millisecond, and pruning
 * may already have deleted the first of them: a name freed that way must not be reused, or the
 * newest file would sort as the oldest. Only recent stamps matter, so the map stays small.
 */
const lastCounter = new Map<string, number>()

/** A free name for `file` rotated at `date` (synchronous: it runs inside a write). */
export const rotatedFileName = (file: string, date: Date): string => {
  const base = `${file}.${stampOf(date)}`
  for (let n = (lastCounter.get(base) ?? -1) + 1; ; n++) {
    const candidate = n === 0 ? base : `${base}-${n}`
    if (taken(candidate)) continue
    lastCounter.set(base, n)
    if (lastCounter.size > 64) lastCounter.delete(lastCounter.keys().next().value!)
    return candidate
  }
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The rotated files of `file`, newest first; none when its folder does not exist. */
export const listRotatedFiles = async (file: string): Promise<ReadonlyArray<RotatedFile>> => {
  const dir = path.dirname(file)
  const pattern = new RegExp(`^${escapeRegex(path.basename(file))}\\.(\\d{8}-\\d{6}-\\d{3})(?:-(\\d+))?(\\.gz)?$`)
  let names: ReadonlyArray<string>
  try {
    names = await fs.promises.readdir(dir)
  } catch {
    return []
  }
  const found: Array<RotatedFile> = []
  for (const name of names) {
    const match = pattern.exec(name)
    if (match === null) continue
    found.push({
      path: path.join(dir, name),
      compressed: match[3] !== undefined,
      stamp: match[1]!,
      counter: match[2] === undefined ? 0 : Number(match[2])
    })
  }
  return found.sort((a, b) => (a.stamp === b.stamp ? b.counter - a.counter : a.stamp < b.stamp ? 1 : -1))
}
