/**
 * The daemon's log files (docs/architecture.md §7): it opens each instance's files, carries the children's
 * streams into them and reads them back.
 *
 * Files are shared: with `merge_logs` every instance writes the same out and err files, and out and
 * err both write the combined `log_file`. Each path has one `RotatingFile` with a count of the
 * instances using it, so writes to it are serialised (whole lines, never interleaved within a line)
 * and it is closed when the last user's scope closes.
 */
import { Effect, type Scope } from "effect"
import * as fs from "node:fs"
import { Paths } from "../shared/Paths"
import { acquireReleaseLean, addFinalizerLean } from "../shared/acquireReleaseLean"
import type { AppDefinition } from "../domain/AppDefinition"
import { ISO_DATE_FORMAT } from "../domain/AppDefinition"
import type { BadRequest } from "../domain/errors"
import { type InstanceFiles, instanceFiles } from "../domain/logPaths"
import { detectLevel } from "./detectLevel"
import { lineFormatter, textPrefix } from "./formatLine"
import type { LogEntry, LogStream } from "./LogEntry"
import { LogCounts } from "./LogCounts"
import { LogPipe } from "./LogPipe"
import type { LogQuery } from "./LogQuery"
import { readLogs } from "./LogReader"
import { listRotatedFiles } from "./rotatedFiles"
import { RotatingFile, type RotationPolicy } from "./RotatingFile"
import { timestampFormatter } from "./TimestampPattern"
import { attachEcho, echoTargets } from "./ConsoleEcho"
import { LogOutput, writesFiles } from "./LogOutput"

/** How long closing an instance's logs waits for its streams to end before it stops reading them. */
const END_GRACE_MS = 2_000

export interface InstanceLogs {
  /** The instance's out, err, combined and pid paths. */
  readonly files: InstanceFiles
  /**
   * Carries a child's stdout (`"out"`) or stderr (`"err"`) into the instance's files until the
   * stream ends. Call it again for each new child of the instance (after a restart). After the
   * scope has closed, the stream is drained and dropped.
   */
  readonly attach: (stream: NodeJS.ReadableStream, which: LogStream, carryFile?: string) => AttachedStream
}

export interface AttachedStream {
  /** Calls `listener` once the stream has ended (at once if it has). */
  readonly whenEnded: (listener: () => void) => void
  /** Whether it has ended (its last line written). */
  readonly ended: () => boolean
}

export interface FailingLogFile {
  readonly path: string
  /** Why it cannot be opened or written, like "ENOSPC: no space left on device, write". */
  readonly reason: string
  readonly dropped_lines: number
}

/** For `/health`: lines lost since the daemon started, and the log files that cannot be written now. */
export interface LogHealth {
  readonly dropped_lines: number
  readonly failing: ReadonlyArray<FailingLogFile>
}

/**
 * Waits until the pipe's stream has ended, or `END_GRACE_MS` at most. The grace period is a plain
 * timer rather than Effect's clock on purpose: under a `TestClock` an Effect timeout never fires,
 * and closing logs must not hang a test whose child still holds its pipes open.
 */
const endedOrGrace = (pipe: LogPipe): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const timer = setTimeout(() => resume(Effect.void), END_GRACE_MS)
    pipe.whenEnded(() => {
      clearTimeout(timer)
      resume(Effect.void)
    })
    return Effect.sync(() => clearTimeout(timer))
  })

const policyOf = (app: AppDefinition): RotationPolicy => ({
  maxSize: app.max_log_size,
  maxFiles: app.max_log_files,
  compress: app.compress_logs,
  daily: app.rotation_schedule === "daily"
})

export class LogStore extends Effect.Service<LogStore>()("pmfx/LogStore", {
  effect: Effect.gen(function* () {
    const { home } = yield* Paths
    const output = yield* LogOutput
    const echo = output.echo === null ? null : { json: output.echo.json, targets: echoTargets() }
    const open = new Map<string, { readonly file: RotatingFile; users: number }>()
    /** Lines dropped by files already closed (see `health`). */
    let droppedByClosed = 0
    /** Lines and bytes per instance and stream, for `GET /metrics`. */
    const counts = new LogCounts()

    /** The shared file at `path`, opened by its first user, closed after its last. */
    const useFile = (path: string, policy: RotationPolicy): Effect.Effect<RotatingFile, never, Scope.Scope> =>
      acquireReleaseLean(
        // Look-up and open in one synchronous step, so two instances opening together share one file.
        Effect.sync(() => {
          const shared = open.get(path)
          if (shared !== undefined) {
            shared.users++
            return shared.file
          }
          const file = RotatingFile.unsafeOpen(path, policy)
          open.set(path, { file, users: 1 })
          return file
        }).pipe(
          Effect.tap((file) =>
            file.failure === null
              ? Effect.void
              : Effect.logWarning(
                  `cannot open log file ${path}: ${file.failure.message}; its lines are dropped until it can be opened`
                )
          )
        ),
        (file) =>
          Effect.suspend(() => {
            const shared = open.get(path)
            if (shared === undefined || shared.file !== file || --shared.users > 0) return Effect.void
            open.delete(path)
            return Effect.ensuring(
              file.close,
              Effect.sync(() => (droppedByClosed += file.droppedLines))
            )
          })
      )

    const openInstance = (
      app: AppDefinition,
      instance: number,
      onLine?: (entry: LogEntry) => void,
      /** Whether `onLine` wants lines right now; lines are only decoded for it when it does. */
      wantsLines?: () => boolean,
      /** True when the daemon hands its apps over to a successor: streams are handed off, not drained. */
      handingOff: () => boolean = () => false
    ): Effect.Effect<InstanceLogs, never, Scope.Scope> =>
      Effect.gen(function* () {
        const files = instanceFiles(app, instance, home)
        const policy = policyOf(app)
        // The runtime may write no files (LogOutput.ts): the lines still reach listeners and the echo.
        const withFiles = writesFiles(output, app)
        const out = withFiles ? yield* useFile(files.out_file, policy) : null
        const err = withFiles ? yield* useFile(files.error_file, policy) : null
        const combined = !withFiles || files.log_file === null ? null : yield* useFile(files.log_file, policy)
        // A path given for two roles (say out_file = log_file) is one file and gets each line once.
        const targets = (own: RotatingFile | null): Array<RotatingFile> =>
          own === null ? [] : [...new Set(combined === null ? [own] : [own, combined])]
        const format = { prefix: textPrefix(app), line: lineFormatter(app) }
        const iso = timestampFormatter(ISO_DATE_FORMAT)!
        const pipes = new Set<LogPipe>()
        let closed = false

        // Registered after the files, so it runs before they are released: streams end first.
        yield* addFinalizerLean(
          Effect.suspend(() => {
            closed = true
            if (handingOff()) {
              for (const pipe of [...pipes]) pipe.handOff()
              return Effect.void
            }
            return Effect.forEach([...pipes], (pipe) => Effect.andThen(endedOrGrace(pipe), () => pipe.detach()), {
              concurrency: "unbounded",
              discard: true
            })
          })
        )

        const attach = (stream: NodeJS.ReadableStream, which: LogStream, carryFile?: string): AttachedStream => {
          if (closed) {
            stream.resume()
            return { whenEnded: (listener) => listener(), ended: () => true }
          }
          const lineListener =
            onLine === undefined
              ? undefined
              : (message: string, ms: number, continued: boolean) => {
                  const entry: LogEntry = {
                    timestamp: iso(ms),
                    app: app.name,
                    instance,
                    stream: which,
                    level: detectLevel(message, which),
                    message
                  }
                  onLine(continued ? { ...entry, continued: true } : entry)
                }
          if (echo !== null) attachEcho(stream, app.name, instance, which, echo.json, echo.targets[which])
          const pipe = new LogPipe(
            stream,
            targets(which === "out" ? out : err),
            format,
            which,
            instance,
            lineListener,
            wantsLines,
            app.max_line_length,
            carryFile ?? null,
            counts.counterFor(app.namespace, app.name, instance, which)
          )
          pipes.add(pipe)
          pipe.whenEnded(() => pipes.delete(pipe))
          return { whenEnded: (listener) => pipe.whenEnded(listener), ended: () => pipe.ended }
        }

        return { files, attach }
      })

    /** The last matching entries of `app`, oldest first (see `LogReader`). */
    const read = (app: AppDefinition, query: LogQuery): Effect.Effect<ReadonlyArray<LogEntry>, BadRequest> =>
      readLogs(app, query, home)

    /** Lines lost because a log file could not be written (a full disk), and the files failing now. */
    const health = (): LogHealth => {
      let dropped = droppedByClosed
      const failing: Array<FailingLogFile> = []
      for (const [path, { file }] of open) {
        dropped += file.droppedLines
        const failure = file.failure
        if (failure !== null) failing.push({ path, reason: failure.message, dropped_lines: file.droppedLines })
      }
      return { dropped_lines: dropped, failing }
    }

    /**
     * Empties the given log files and removes their rotated files (`pmfx flush`): an open file
     * through its `RotatingFile` (writers keep their descriptor), a closed one by its path.
     */
    const flush = (paths: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>> =>
      Effect.promise(async () => {
        const flushed: Array<string> = []
        for (const path of new Set(paths)) {
          const shared = open.get(path)
          if (shared !== undefined) {
            await shared.file.truncate()
          } else {
            await fs.promises.truncate(path, 0).catch(() => undefined)
            for (const rotated of await listRotatedFiles(path).catch(() => []))
              await fs.promises.rm(rotated.path, { force: true }).catch(() => undefined)
          }
          flushed.push(path)
        }
        return flushed
      })

    /** Reopens every open log file at its path (`pmfx reloadLogs`); returns the paths reopened and those that failed. */
    const reopenAll = (): Effect.Effect<{
      readonly reopened: ReadonlyArray<string>
      readonly failed: ReadonlyArray<FailingLogFile>
    }> =>
      Effect.sync(() => {
        const reopened: Array<string> = []
        const failed: Array<FailingLogFile> = []
        for (const [path, { file }] of open) {
          if (file.reopenAtPath()) reopened.push(path)
          else
            failed.push({ path, reason: file.failure?.message ?? "cannot be opened", dropped_lines: file.droppedLines })
        }
        return { reopened, failed }
      })

    return { openInstance, read, health, flush, reopenAll, counts } as const
  }),
  dependencies: [Paths.Default, LogOutput.files]
}) {}
