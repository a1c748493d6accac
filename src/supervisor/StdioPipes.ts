/**
 * The apps' stdout and stderr as named pipes (FIFOs) in `PMFX_HOME/pipes` (docs/decisions.md,
 * "Apps outlive the daemon"). A child gets each FIFO opened read-write, so it holds a reader of its
 * own: when the daemon dies, the child never sees EPIPE/SIGPIPE — its writes block once the pipe's
 * 64 KiB fill up, until a daemon reads again, so no line is lost. The daemon reads each FIFO
 * through a non-blocking descriptor wrapped in a `net.Socket` (libuv's event loop, not its thread
 * pool), and the next daemon reopens the same paths to adopt the app.
 *
 * Node has no mkfifo, so FIFOs are made by the `mkfifo` program; to keep that spawn off the
 * crash → replacement path, a few spare pairs are made ahead of time and a spawn renames one into
 * place.
 */
import { Effect, Option } from "effect"
import { execFile } from "node:child_process"
import { randomHex } from "../shared/randomHex"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Paths } from "../shared/Paths"

/** One app process's pair of FIFOs; `name` is what state.json records. */
export interface PipePair {
  readonly name: string
  readonly out: string
  readonly err: string
}

const SPARE_PREFIX = "spare-"
/** Spare pairs kept ready: enough for a few apps crashing at once without a mkfifo on their path. */
const SPARES = 8

/** A name that state.json may hold for a pair: checked before any path is built from it. */
export const isPipeName = (name: string): boolean => /^[a-z0-9-]{1,64}$/.test(name)

export const pairAt = (dir: string, name: string): PipePair => ({
  name,
  out: path.join(dir, `${name}.out`),
  err: path.join(dir, `${name}.err`)
})

const isFifo = (file: string): boolean => {
  try {
    return fs.lstatSync(file).isFIFO()
  } catch {
    return false
  }
}

const makeFifos = (files: ReadonlyArray<string>): Promise<void> =>
  new Promise((resolve, reject) =>
    execFile("mkfifo", ["-m", "600", "--", ...files], { timeout: 10_000 }, (error) =>
      error === null ? resolve() : reject(error)
    )
  )

/** The daemon's read ends of a pair. */
export interface PipeReaders {
  readonly out: net.Socket
  readonly err: net.Socket
}

/**
 * The pair's read ends, for the daemon: non-blocking, so reading never ties up a thread. Opened
 * before a spawn, not after: a FIFO's unread bytes are dropped by the kernel once no descriptor
 * is open on it, and a child that writes a line and exits at once closes the last one.
 */
export const openReaders = (pair: PipePair): PipeReaders => {
  const open = (file: string) => {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    return new net.Socket({ fd, readable: true, writable: false })
  }
  const out = open(pair.out)
  try {
    return { out, err: open(pair.err) }
  } catch (error) {
    out.destroy()
    throw error
  }
}

/**
 * The pair opened read-write, for a child's stdout and stderr. The caller closes both descriptors
 * right after the spawn: the daemon must hold no writer, or its readers would never see the end.
 */
export const openWriters = (pair: PipePair): { readonly out: number; readonly err: number } => {
  const out = fs.openSync(pair.out, fs.constants.O_RDWR)
  try {
    return { out, err: fs.openSync(pair.err, fs.constants.O_RDWR) }
  } catch (error) {
    fs.closeSync(out)
    throw error
  }
}

/** Whether both FIFOs of the pair are still there (an app to adopt needs them). */
export const pairExists = (pair: PipePair): boolean => isFifo(pair.out) && isFifo(pair.err)

export const removePair = (pair: PipePair): void => {
  fs.rmSync(pair.out, { force: true })
  fs.rmSync(pair.err, { force: true })
  fs.rmSync(`${pair.out}.partial`, { force: true })
  fs.rmSync(`${pair.err}.partial`, { force: true })
}

export class StdioPipes extends Effect.Service<StdioPipes>()("pmfx/StdioPipes", {
  scoped: Effect.gen(function* () {
    const { pipes: dir } = yield* Paths
    const spares: Array<PipePair> = []
    let refilling = false
    /** Set when the layer closes: a refill finishing later removes what it made. */
    let closed = false
    let counter = 0
    const freshName = () => `${process.pid.toString(36)}-${(counter++).toString(36)}-${randomHex(4)}`

    const ensureDir = () => fs.mkdirSync(dir, { recursive: true, mode: 0o700 })

    /** Creates a new pair under `name` (mkfifo, off the event loop). */
    const create = (name: string): Promise<PipePair> => {
      ensureDir()
      const pair = pairAt(dir, name)
      return makeFifos([pair.out, pair.err]).then(() => pair)
    }

    /**
     * Spawns that found no spare, waiting for the refill under way: a burst (50 apps of one file)
     * then costs a few mkfifo runs, not one per app. Called with null when the refill failed.
     */
    const waiting: Array<(pair: PipePair | null) => void> = []

    const serveWaiters = (): void => {
      while (waiting.length > 0 && spares.length > 0) waiting.shift()!(spares.shift()!)
    }

    /** Tops the spares up — and makes one pair per waiting spawn — all in one mkfifo. */
    const refill = (): void => {
      const wanted = SPARES - spares.length + waiting.length
      if (refilling || wanted <= 0) return
      refilling = true
      const pairs = Array.from({ length: wanted }, () => pairAt(dir, `${SPARE_PREFIX}${freshName()}`))
      const failed = () => {
        refilling = false
        for (const pair of pairs) removePair(pair)
        // The waiting spawns make their own pair (and report mkfifo's error if it fails again).
        for (const waiter of waiting.splice(0)) waiter(null)
      }
      try {
        ensureDir()
      } catch {
        failed()
        return
      }
      makeFifos(pairs.flatMap((pair) => [pair.out, pair.err])).then(
        () => {
          refilling = false
          if (closed) {
            for (const pair of pairs) removePair(pair)
            return
          }
          spares.push(...pairs)
          serveWaiters()
          refill()
        },
        // mkfifo failed (disk full, say): spawns create their own pair and report the error.
        failed
      )
    }

    // Spares of an earlier daemon were never handed to an app.
    yield* Effect.sync(() => {
      try {
        for (const entry of fs.readdirSync(dir))
          if (entry.startsWith(SPARE_PREFIX)) fs.rmSync(path.join(dir, entry), { force: true })
      } catch {
        // No pipes folder yet.
      }
    })
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        for (const pair of spares.splice(0)) removePair(pair)
      })
    )
    // Ready before the first spawn asks.
    yield* Effect.sync(refill)

    /** A spare renamed to `name`; null when that failed (the spare is removed). */
    const claim = (spare: PipePair, name: string): PipePair | null => {
      const pair = pairAt(dir, name)
      try {
        fs.renameSync(spare.out, pair.out)
        fs.renameSync(spare.err, pair.err)
        return pair
      } catch {
        removePair(spare)
        return null
      }
    }

    const createNow = (name: string): Effect.Effect<PipePair, Error> =>
      Effect.tryPromise({
        try: () => create(name),
        catch: (error) => (error instanceof Error ? error : new Error(String(error)))
      })

    /**
     * A new pair for one spawn: a spare renamed into place; when none is ready, one of the refill
     * under way (it makes a pair for each waiting spawn); made on its own when that fails.
     */
    const take: Effect.Effect<PipePair, Error> = Effect.suspend(() => {
      const name = freshName()
      const spare = spares.shift()
      if (spare !== undefined) {
        refill()
        const pair = claim(spare, name)
        return pair === null ? createNow(name) : Effect.succeed(pair)
      }
      return Effect.async<PipePair | null>((resume) => {
        const waiter = (pair: PipePair | null) => resume(Effect.succeed(pair === null ? null : claim(pair, name)))
        waiting.push(waiter)
        refill()
        // An interrupted spawn leaves the queue; a pair made for it stays a spare.
        return Effect.sync(() => {
          const at = waiting.indexOf(waiter)
          if (at >= 0) waiting.splice(at, 1)
        })
      }).pipe(Effect.flatMap((pair) => (pair === null ? createNow(name) : Effect.succeed(pair))))
    })

    /** The pair state.json names, when that name is valid and both FIFOs exist. */
    const existing = (name: string): Option.Option<PipePair> => {
      if (!isPipeName(name)) return Option.none()
      const pair = pairAt(dir, name)
      return pairExists(pair) ? Option.some(pair) : Option.none()
    }

    return { dir, take, existing } as const
  })
}) {}
