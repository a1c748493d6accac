/**
 * Reads an app's log lines back (docs/api.md `GET .../logs`): the last `lines` entries matching a
 * query, across its instances and its out and err files, rotated and gzipped ones included,
 * merged in time order.
 *
 * Each file set (a current file and its rotated files) is read newest first and yields only the
 * lines that match; the sets are merged by timestamp until `lines` entries are found, so a query
 * for the last 100 lines reads little more than the tails of the files. Plain files are read
 * backwards in chunks; a gzipped file can only be read forwards, so it is streamed through,
 * keeping just its last `lines` matches. A line without a timestamp sorts with the line after it.
 */
import { Clock, Effect } from "effect"
import * as fs from "node:fs"
import { createGunzip } from "node:zlib"
import type { AppDefinition } from "../domain/AppDefinition"
import type { BadRequest } from "../domain/errors"
import { instanceFiles } from "../domain/logPaths"
import { BackwardLines } from "./BackwardLines"
import { atLeast, detectLevel } from "./detectLevel"
import type { LogEntry, LogStream } from "./LogEntry"
import { stringLineSplitter } from "./LineSplitter"
import { compileLogQuery, type LogFilter, type LogQuery } from "./LogQuery"
import { type LineSource, type StoredLine, storedLineParser } from "./parseStoredLine"
import { listRotatedFiles } from "./rotatedFiles"

/**
 * The longest stored line of `app` read whole: its `max_line_length`, grown for a JSON record
 * (escaping takes up to 6 bytes a byte) and its fields. Longer "lines" (a damaged or foreign file)
 * come out in pieces, which bounds memory.
 */
const storedLineLimit = (app: AppDefinition): number => app.max_line_length * 6 + 64 * 1024

/** One matching entry with the time it sorts by. */
interface Match {
  readonly entry: LogEntry
  readonly ms: number
}

/** A file set's matches, newest first, in batches. */
type Matches = AsyncGenerator<ReadonlyArray<Match>, void>

/** The verdict on one stored line. */
type Verdict = Match | "skip" | "older"

const isMissing = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "code" in error && (error.code === "ENOENT" || error.code === "EACCES")

/**
 * The log files the query covers, each with what its text lines cannot say themselves: a file
 * several instances share (merge_logs) gives no instance, and a file given as both out_file and
 * error_file is read once, as the first stream asked for.
 */
export const logSources = (
  app: AppDefinition,
  filter: Pick<LogFilter, "streams" | "instance">,
  home: string
): ReadonlyArray<{ readonly file: string; readonly source: LineSource }> => {
  const users = new Map<string, { stream: LogStream; instances: Set<number> }>()
  for (let instance = 0; instance < app.instances; instance++) {
    const files = instanceFiles(app, instance, home)
    for (const stream of filter.streams) {
      const file = stream === "out" ? files.out_file : files.error_file
      const known = users.get(file)
      if (known === undefined) users.set(file, { stream, instances: new Set([instance]) })
      else known.instances.add(instance)
    }
  }
  return [...users]
    .filter(([, use]) => filter.instance === null || use.instances.has(filter.instance))
    .map(([file, use]) => ({
      file,
      source: { stream: use.stream, instance: use.instances.size === 1 ? [...use.instances][0]! : null }
    }))
}

/** Applies the filter to one stored line; "older" once a line is before `since` (all earlier lines are too). */
const judge = (app: AppDefinition, filter: LogFilter, line: StoredLine): Verdict => {
  const timed = !Number.isNaN(line.ms)
  if (filter.since !== null || filter.until !== null) {
    if (!timed) return "skip"
    if (filter.since !== null && line.ms < filter.since) return "older"
    if (filter.until !== null && line.ms > filter.until) return "skip"
  }
  if (!filter.streams.includes(line.stream)) return "skip"
  if (filter.instance !== null && line.instance !== null && line.instance !== filter.instance) return "skip"
  if (filter.grep !== null && !filter.grep.test(line.message)) return "skip"
  const level = detectLevel(line.message, line.stream)
  if (filter.level !== null && !atLeast(level, filter.level)) return "skip"
  const entry: LogEntry = {
    timestamp: line.timestamp,
    app: app.name,
    instance: line.instance,
    stream: line.stream,
    level,
    message: line.message
  }
  return { ms: line.ms, entry: line.continued === true ? { ...entry, continued: true } : entry }
}

/** Matches of one plain file, newest first; false in `older` when the file reached lines before `since`. */
async function* plainFile(
  file: string,
  maxLineBytes: number,
  seen: Set<string>,
  judgeLine: (line: string) => Verdict,
  state: { older: boolean }
): Matches {
  let handle: fs.promises.FileHandle
  try {
    handle = await fs.promises.open(file, "r")
  } catch (error) {
    if (isMissing(error)) return
    throw error
  }
  try {
    const stat = await handle.stat()
    // A file renamed by a rotation between listing and opening is already read under its old name.
    const identity = `${stat.dev}:${stat.ino}`
    if (seen.has(identity)) return
    seen.add(identity)
    const lines = new BackwardLines(handle, stat.size, maxLineBytes)
    for (;;) {
      const batch = await lines.previous()
      if (batch.length === 0) return
      const matches: Array<Match> = []
      for (let i = batch.length - 1; i >= 0; i--) {
        const verdict = judgeLine(batch[i]!)
        if (verdict === "older") {
          state.older = true
          break
        }
        if (verdict !== "skip") matches.push(verdict)
      }
      if (matches.length > 0) yield matches
      if (state.older) return
    }
  } finally {
    await handle.close()
  }
}

/** Matches of one gzipped file, newest first: only its last `keep` matches are held. */
async function* gzippedFile(
  file: string,
  maxLineBytes: number,
  keep: number,
  judgeLine: (line: string) => Verdict,
  state: { older: boolean }
): Matches {
  const last: Array<Match> = []
  const splitter = stringLineSplitter((line) => {
    const verdict = judgeLine(line)
    if (verdict === "older") state.older = true
    else if (verdict !== "skip") {
      last.push(verdict)
      if (last.length > keep * 2) last.splice(0, last.length - keep)
    }
  }, maxLineBytes)
  let handle: fs.promises.FileHandle
  try {
    handle = await fs.promises.open(file, "r")
  } catch (error) {
    if (isMissing(error)) return
    throw error
  }
  const input = handle.createReadStream()
  const gunzip = createGunzip()
  input.on("error", (error) => gunzip.destroy(error))
  try {
    for await (const chunk of input.pipe(gunzip)) splitter.push(chunk as Buffer)
  } catch {
    // A damaged archive gives what could be read of it rather than failing the whole query.
  } finally {
    input.destroy()
    gunzip.destroy()
  }
  // Like the writer's files, a gzipped file ends with a newline; a partial tail is not a line.
  const matches = last.slice(-keep).reverse()
  if (matches.length > 0) yield matches
}

/** The matches of one log file and its rotated files, newest first. */
async function* fileSet(app: AppDefinition, filter: LogFilter, file: string, source: LineSource): Matches {
  const parse = storedLineParser(app, source)
  const judgeLine = (line: string): Verdict => judge(app, filter, parse(line))
  const state = { older: false }
  const seen = new Set<string>()
  const limit = storedLineLimit(app)
  yield* plainFile(file, limit, seen, judgeLine, state)
  if (state.older) return
  for (const rotated of await listRotatedFiles(file)) {
    if (rotated.compressed) yield* gzippedFile(rotated.path, limit, filter.lines, judgeLine, state)
    else yield* plainFile(rotated.path, limit, seen, judgeLine, state)
    if (state.older) return
  }
}

/** Takes the newest `limit` matches across the sets by timestamp and returns them oldest first. */
const mergeNewest = async (sets: ReadonlyArray<Matches>, limit: number): Promise<ReadonlyArray<LogEntry>> => {
  const heads = sets.map((set) => ({ set, batch: [] as ReadonlyArray<Match>, index: 0, done: false, sortMs: Infinity }))
  type Head = (typeof heads)[number]
  const fill = async (head: Head): Promise<void> => {
    while (!head.done && head.index >= head.batch.length) {
      const next = await head.set.next()
      if (next.done === true) head.done = true
      else {
        head.batch = next.value
        head.index = 0
      }
    }
    // A line without a timestamp sorts with the (newer) line read before it in its file.
    if (!head.done && !Number.isNaN(head.batch[head.index]!.ms)) head.sortMs = head.batch[head.index]!.ms
  }
  await Promise.all(heads.map(fill))
  const picked: Array<LogEntry> = []
  while (picked.length < limit) {
    let newest: Head | undefined
    for (const head of heads) if (!head.done && (newest === undefined || head.sortMs > newest.sortMs)) newest = head
    if (newest === undefined) break
    picked.push(newest.batch[newest.index]!.entry)
    newest.index++
    await fill(newest)
  }
  return picked.reverse()
}

/** The last `query.lines` entries of `app` that match `query`, oldest first. */
export const readLogs = (
  app: AppDefinition,
  query: LogQuery,
  home: string
): Effect.Effect<ReadonlyArray<LogEntry>, BadRequest> =>
  Effect.gen(function* () {
    const filter = yield* compileLogQuery(query, app, yield* Clock.currentTimeMillis)
    if (filter.lines === 0) return []
    return yield* Effect.acquireUseRelease(
      Effect.sync(() => logSources(app, filter, home).map(({ file, source }) => fileSet(app, filter, file, source))),
      (sets) => Effect.promise(() => mergeNewest(sets, filter.lines)),
      // Ending the generators runs their `finally` blocks, which close the files still open.
      (sets) => Effect.promise(() => Promise.all(sets.map((set) => set.return(undefined)))).pipe(Effect.ignore)
    )
  })
