/**
 * `kill_signal` (docs/configuration.md): the first signal of every stop — `pmfx stop`, restart,
 * the engine's own stop — with real processes that record the signal they got.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, fixture, PATH_ENV, withEngine, withTempDir } from "../support/engine"
import { randomPortBase } from "../support/ports"

const recorder = fixture("record-signal.js")

const lines = (file: string): ReadonlyArray<string> =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l !== "")
    : []

/** An app that records its stop signal in `<dir>/<name>.signals`, ready once `<dir>/<name>.ready` has `runs` lines. */
const recorderApp = (dir: string, name: string, extra: object = {}) => ({
  name,
  script: recorder,
  env: { SIGNAL_FILE: path.join(dir, `${name}.signals`), READY_FILE: path.join(dir, `${name}.ready`) },
  kill_timeout: "10s",
  ...extra
})
const signalsOf = (dir: string, name: string) => lines(path.join(dir, `${name}.signals`))
const runsOf = (dir: string, name: string) => lines(path.join(dir, `${name}.ready`)).length

describe("kill_signal", () => {
  it.live("pmfx stop and restart send kill_signal (SIGINT, usr2); the default is SIGTERM", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const apps = yield* definitions([
            recorderApp(dir, "interrupted", { kill_signal: "SIGINT" }),
            recorderApp(dir, "reloader", { kill_signal: "usr2" }),
            recorderApp(dir, "plain")
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.sync(() => ["interrupted", "reloader", "plain"].every((n) => runsOf(dir, n) === 1)),
            "three apps ready"
          )
          const stopped = yield* pm.stop("interrupted")
          expect(stopped[0]!.status).toBe("stopped")
          yield* pm.stop("plain")
          expect(signalsOf(dir, "interrupted")).toEqual(["SIGINT"])
          expect(signalsOf(dir, "plain")).toEqual(["SIGTERM"])
          // A restart stops the running process the same way.
          yield* pm.restart("reloader")
          yield* eventually(
            Effect.sync(() => runsOf(dir, "reloader") === 2),
            "reloader restarted"
          )
          expect(signalsOf(dir, "reloader")).toEqual(["SIGUSR2"])
          expect((yield* pm.get("reloader")).status).toBe("online")
        })
      )
    )
  )

  it.live("a stop signals a process once, so a slow graceful stop is not cut short by a second signal", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          // 400 ms of cleanup after the signal; a second SIGTERM would be recorded (and, with
          // `process.once`, kill the app before its cleanup is done).
          const graceful = recorderApp(dir, "graceful")
          const slowInt = recorderApp(dir, "slow-int", { kill_signal: "SIGINT" })
          yield* pm.create(
            yield* definitions([
              { ...graceful, env: { ...graceful.env, GRACE_MS: "400" } },
              { ...slowInt, env: { ...slowInt.env, GRACE_MS: "400" } }
            ]),
            { baseEnv: PATH_ENV }
          )
          yield* eventually(
            Effect.sync(() => runsOf(dir, "graceful") === 1 && runsOf(dir, "slow-int") === 1),
            "both ready"
          )
          yield* pm.stop("graceful")
          yield* pm.stop("slow-int")
          // One signal each, and their cleanup ran to its end.
          expect(signalsOf(dir, "graceful")).toEqual(["SIGTERM", "cleaned up"])
          expect(signalsOf(dir, "slow-int")).toEqual(["SIGINT", "cleaned up"])
        })
      )
    )
  )

  it.live("the engine's stop (daemon shutdown, pmfx-runtime's SIGTERM) sends each app its kill_signal", () =>
    withTempDir((dir) =>
      Effect.gen(function* () {
        yield* withEngine(() =>
          Effect.gen(function* () {
            const pm = yield* ProcessManager
            yield* pm.create(
              yield* definitions([recorderApp(dir, "hup", { kill_signal: "SIGHUP" }), recorderApp(dir, "term")]),
              { baseEnv: PATH_ENV }
            )
            yield* eventually(
              Effect.sync(() => runsOf(dir, "hup") === 1 && runsOf(dir, "term") === 1),
              "both ready"
            )
          })
        )
        expect(signalsOf(dir, "hup")).toEqual(["SIGHUP"])
        expect(signalsOf(dir, "term")).toEqual(["SIGTERM"])
      })
    )
  )

  it.live("a cluster worker gets its app's kill_signal (SIGINT when none is set)", () =>
    withTempDir((dir) =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const a = randomPortBase(2)
          const b = a + 1
          const apps = yield* definitions([
            recorderApp(dir, "workers", {
              exec_mode: "cluster",
              instances: 2,
              env: { ...recorderApp(dir, "workers").env, PORT: String(a) }
            }),
            recorderApp(dir, "usr2-workers", {
              exec_mode: "cluster",
              kill_signal: "SIGUSR2",
              env: { ...recorderApp(dir, "usr2-workers").env, PORT: String(b) }
            })
          ])
          yield* pm.create(apps, { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.sync(() => runsOf(dir, "workers") === 2 && runsOf(dir, "usr2-workers") === 1),
            "workers ready"
          )
          yield* pm.stop("workers")
          yield* pm.stop("usr2-workers")
          expect(signalsOf(dir, "workers")).toEqual(["SIGINT", "SIGINT"])
          expect(signalsOf(dir, "usr2-workers")).toEqual(["SIGUSR2"])
        })
      )
    )
  )
})
