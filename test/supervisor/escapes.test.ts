/**
 * Processes that leave the app's process group (setsid, a detached Node child, a double fork
 * whose parent exits at once) are stopped with the app (issue 11, defect 8; docs/decisions.md).
 */
import { afterEach, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ProcessManager } from "../../src/supervisor/ProcessManager"
import { definitions, eventually, PATH_ENV, withEngine } from "../support/engine"
import { escapees, escapeShapes, killEscapees } from "../support/escapes"
import { descendantsOfPid } from "../support/storm"

const shapes = escapeShapes(process.pid)
afterEach(() => {
  killEscapees(shapes)
})

const running = (marker: string) => Effect.sync(() => escapees(marker).length === 1)

describe("descendants that leave the process group", () => {
  for (const verb of ["stop", "delete", "restart"] as const) {
    it.live(`${verb} ends all three escape shapes`, () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          yield* pm.create(yield* definitions(shapes.map((shape) => shape.app)), { baseEnv: PATH_ENV })
          for (const shape of shapes) yield* eventually(running(shape.marker), `${shape.name} running`)
          const before = shapes.map((shape) => escapees(shape.marker)[0])
          yield* pm[verb]("all")
          // No waiting: the request returns once the processes are gone.
          for (const [i, shape] of shapes.entries())
            expect(
              escapees(shape.marker).filter((pid) => pid === before[i]),
              shape.name
            ).toEqual([])
        })
      )
    )
  }

  it.live("a crashed run's escapee is ended too, and the restarted run keeps its own", () =>
    withEngine(() =>
      Effect.gen(function* () {
        const pm = yield* ProcessManager
        const shape = shapes[2]!
        const [row] = yield* pm.create(yield* definitions([shape.app]), { baseEnv: PATH_ENV })
        yield* eventually(running(shape.marker), "escapee running")
        const first = escapees(shape.marker)[0]!
        process.kill(row!.pid!, "SIGKILL")
        yield* eventually(
          Effect.sync(() => !escapees(shape.marker).includes(first) && escapees(shape.marker).length === 1),
          "the old escapee gone, a new one running"
        )
        yield* pm.delete("all")
        expect(escapees(shape.marker)).toEqual([])
      })
    )
  )

  it.live(
    "an escapee that clears its environment is still found by the descendants the sampler saw",
    () =>
      withEngine(() =>
        Effect.gen(function* () {
          const pm = yield* ProcessManager
          const marker = String(900_000 + (process.pid % 90_000))
          // No PMFX_RUN_ID (env -i), and its parent exits 2 s later: only the sampled record knows it.
          const app = {
            name: "esc-clean",
            script: "bash",
            args: ["-c", `(env -i setsid sleep ${marker} & sleep 2); sleep 1000`]
          }
          const [row] = yield* pm.create(yield* definitions([app]), { baseEnv: PATH_ENV })
          yield* eventually(
            Effect.sync(() => escapees(marker).length === 1),
            "escapee running"
          )
          const escapee = escapees(marker)[0]!
          yield* eventually(
            Effect.sync(() => !descendantsOfPid(row!.pid!).includes(escapee)),
            "escapee reparented out of the tree"
          )
          yield* pm.stop("esc-clean")
          expect(escapees(marker)).toEqual([])
        }).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              for (const pid of escapees(String(900_000 + (process.pid % 90_000)))) process.kill(pid, "SIGKILL")
            })
          )
        )
      ),
    { timeout: 30_000 }
  )
})
