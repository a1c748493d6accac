/**
 * One run of a health check (docs/api.md §3 `health_check`, docs/architecture.md §4): an HTTP GET or a script. A probe
 * never fails: every problem is an unhealthy result whose `detail` says why. Interrupting a probe
 * aborts its request or kills its script's process group.
 */
import { Duration, Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as http from "node:http"
import * as https from "node:https"

export interface ProbeResult {
  readonly healthy: boolean
  /** Milliseconds the probe took (at least the timeout when it timed out). */
  readonly response_time: number
  /** `HTTP 200`, `HTTP 503`, `exit code 1`, `timed out after 2000ms`, `connect ECONNREFUSED 127.0.0.1:8080`, ... */
  readonly detail: string
}

interface Outcome {
  readonly healthy: boolean
  readonly detail: string
}

const unhealthy = (detail: string): Outcome => ({ healthy: false, detail })

/** Node reports a failed dual-stack connect (`localhost`) as an AggregateError with an empty message. */
const describeError = (error: unknown): string => {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0])
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code
    return error.message !== "" ? error.message : (code ?? error.name)
  }
  return String(error)
}

/** Runs `outcome` under a timeout and measures it. */
const timedProbe = (outcome: Effect.Effect<Outcome>, timeoutMs: number): Effect.Effect<ProbeResult> =>
  outcome.pipe(
    Effect.timeoutTo({
      duration: Duration.millis(timeoutMs),
      onTimeout: () => ({ ...unhealthy(`timed out after ${timeoutMs}ms`), timedOut: true }),
      onSuccess: (result) => ({ ...result, timedOut: false })
    }),
    Effect.timed,
    Effect.map(([elapsed, { detail, healthy, timedOut }]) => {
      const measured = Math.round(Duration.toMillis(elapsed))
      // Timers are coarse to the millisecond: never report less than the timeout that fired.
      return { healthy, detail, response_time: timedOut ? Math.max(measured, timeoutMs) : measured }
    })
  )

const httpOutcome = (url: string): Effect.Effect<Outcome> =>
  Effect.async<Outcome>((resume) => {
    let target: URL
    try {
      target = new URL(url)
    } catch {
      resume(Effect.succeed(unhealthy(`invalid URL ${url}`)))
      return
    }
    const client = target.protocol === "https:" ? https : target.protocol === "http:" ? http : undefined
    if (client === undefined) {
      resume(Effect.succeed(unhealthy(`unsupported protocol ${target.protocol}`)))
      return
    }
    // No shared agent: a kept-alive socket from an earlier probe must not decide this one.
    const request = client.get(target, { agent: false }, (response) => {
      const status = response.statusCode ?? 0
      // The status line is the answer; the body is not downloaded.
      response.destroy()
      resume(Effect.succeed({ healthy: status >= 200 && status < 300, detail: `HTTP ${status}` }))
    })
    request.on("error", (error) => resume(Effect.succeed(unhealthy(describeError(error)))))
    return Effect.sync(() => request.destroy())
  })

/** GET `url`: healthy when a 2xx status arrives within `timeoutMs`. */
export const httpProbe = (url: string, timeoutMs: number): Effect.Effect<ProbeResult> =>
  timedProbe(httpOutcome(url), timeoutMs)

export interface ScriptProbeOptions {
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly timeoutMs: number
}

const killGroup = (pgid: number | undefined): void => {
  if (pgid === undefined) return
  try {
    process.kill(-pgid, "SIGKILL")
  } catch {
    // ESRCH: the group is already empty.
  }
}

const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

const scriptOutcome = (script: string, options: ScriptProbeOptions): Effect.Effect<Outcome> =>
  Effect.async<Outcome>((resume) => {
    let child: ChildProcess
    try {
      // No shell, and a process group of its own so a timeout can kill whatever the script started.
      child = spawn(script, [], { cwd: options.cwd, env: { ...options.env }, detached: true, stdio: "ignore" })
    } catch (error) {
      resume(Effect.succeed(unhealthy(describeError(error))))
      return
    }
    // Spawn failures (ENOENT, EACCES) arrive here.
    child.once("error", (error) => resume(Effect.succeed(unhealthy(describeError(error)))))
    child.once("exit", (code, signal) => {
      // A check leaves nothing behind: it runs again every interval.
      killGroup(child.pid)
      resume(
        Effect.succeed(
          code === 0
            ? { healthy: true, detail: "exit code 0" }
            : unhealthy(code !== null ? `exit code ${code}` : `killed by ${signal ?? "a signal"}`)
        )
      )
    })
    // Interrupted (or timed out): kill the group and wait until the script is reaped.
    return Effect.async<void>((done) => {
      killGroup(child.pid)
      if (child.pid === undefined || hasExited(child)) done(Effect.void)
      else child.once("exit", () => done(Effect.void))
    })
  })

/**
 * Runs the executable `script` (no shell, no arguments) in `cwd` with exactly `env`: healthy when it
 * exits 0 within `timeoutMs`. On timeout its whole process group is killed.
 */
export const scriptProbe = (script: string, options: ScriptProbeOptions): Effect.Effect<ProbeResult> =>
  timedProbe(scriptOutcome(script, options), options.timeoutMs)
