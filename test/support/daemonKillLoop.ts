/**
 * The daemon SIGKILL loop of the fault suite (docs/decisions.md, "Apps outlive the daemon"): a
 * daemon with three apps — two that write to stdout without pause, one that sits still, one that
 * crashes and is restarted all the time (so spawns happen while daemons die) — is killed with
 * SIGKILL again and again at random moments, before it answers (during the restore and adoption)
 * as well as after. Then one more daemon starts and the outcome is counted: processes per app
 * (duplicates), processes nobody tracks, rows not online, pids that changed (not adopted), and the
 * log lines of the writers that were lost or repeated.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { isAlive, processesWith, type TestDaemon, waitFor } from "./daemon"
import { daemonCommand } from "./daemonCommand"
import { sleep } from "./processes"

const fixtures = path.resolve(__dirname, "../fixtures")

export interface KillLoopFigures {
  readonly rounds: number
  /** Kills that landed before the daemon answered (during restore/adoption). */
  readonly killedBeforeReady: number
  /** Processes beyond one per row, summed over the apps. */
  readonly duplicates: number
  /** Processes of the test's apps that no row lists. */
  readonly untracked: number
  /** Rows of the steady apps that are not online at the end. */
  readonly notOnline: number
  /** Steady rows whose pid changed: restarted instead of adopted. */
  readonly notAdopted: number
  /** Writer lines missing from the logs / present twice / cut. */
  readonly linesLost: number
  readonly linesRepeated: number
  readonly linesCut: number
  readonly linesLogged: number
}

interface Row {
  readonly id: number
  readonly name: string
  readonly pid: number | null
  readonly status: string
}

/** Counts the `<timestamp> <n> tick` lines of a writer's log. */
const countLines = (file: string) => {
  const seen = new Map<number, number>()
  let cut = 0
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue
    const match = /^\S+ (\d+) tick$/.exec(line)
    if (match === null) {
      cut++
      continue
    }
    seen.set(Number(match[1]), (seen.get(Number(match[1])) ?? 0) + 1)
  }
  const highest = Math.max(-1, ...seen.keys())
  let lost = 0
  let repeated = 0
  for (let i = 0; i <= highest; i++) {
    const count = seen.get(i) ?? 0
    if (count === 0) lost++
    else repeated += count - 1
  }
  return { lost, repeated, cut, logged: seen.size }
}

export const daemonKillLoop = async (
  daemon: TestDaemon,
  rounds: number,
  options: { readonly maxDelayMs?: number } = {}
): Promise<KillLoopFigures> => {
  const run = `pmfx-killloop-${Math.random().toString(36).slice(2)}`
  const marker = (name: string) => `${run}-${name}`
  const apps = [
    {
      name: "writer",
      script: path.join(fixtures, "counter.js"),
      args: [marker("writer")],
      instances: 2,
      env: { INTERVAL_MS: "2" },
      merge_logs: false
    },
    { name: "quiet", script: process.execPath, args: ["-e", "setInterval(() => {}, 1000)", marker("quiet")] },
    {
      name: "crasher",
      script: path.join(fixtures, "crash-after.js"),
      args: [marker("crasher")],
      env: { CRASH_AFTER_MS: "400" },
      restart_delay: "0",
      max_restarts: 100_000,
      min_uptime: "100ms"
    }
  ]
  const rows = async () => (await daemon.call("GET", "/api/processes")).body as Array<Row>
  const daemons: Array<ChildProcess> = []
  try {
    await daemon.start()
    for (const app of apps) {
      const reply = await daemon.call("POST", "/api/processes", app)
      if (reply.status !== 201) throw new Error(`could not create ${app.name}: ${JSON.stringify(reply.body)}`)
    }
    await waitFor(
      async () => (await rows()).filter((row) => row.name !== "crasher").every((row) => row.status === "online"),
      "apps online"
    )
    const initial = new Map((await rows()).filter((row) => row.name !== "crasher").map((row) => [row.id, row.pid]))

    let killedBeforeReady = 0
    const maxDelay = options.maxDelayMs ?? 1_500
    for (let round = 0; round < rounds; round++) {
      const current = daemon.pid()
      if (current !== undefined && isAlive(current)) {
        process.kill(current, "SIGKILL")
        await waitFor(() => !isAlive(current), "the daemon to die")
      }
      // A daemon of our own, killed at a random moment of its start or its life.
      const [node, ...args] = daemonCommand()
      const child = spawn(node, args, {
        env: { PMFX_HOME: daemon.home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: "ignore",
        detached: true
      })
      daemons.push(child)
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
      await sleep(Math.floor(Math.random() * maxDelay))
      const answered = await daemon.call("GET", "/").then(
        (reply) => reply.status === 200,
        () => false
      )
      if (!answered) killedBeforeReady++
      child.kill("SIGKILL")
      await exited
    }

    // The last daemon: what does it find?
    await daemon.start()
    await waitFor(
      async () => (await rows()).filter((row) => row.name !== "crasher").every((row) => row.status === "online"),
      "apps online after the loop",
      60_000
    )
    // Let the crasher's restart settle: its one process is the one its row lists.
    let final: Array<Row> = []
    let live: Array<number> = []
    await waitFor(
      async () => {
        final = await rows()
        live = processesWith(run)
        const listed = new Set(final.map((row) => row.pid).filter((pid): pid is number => pid !== null))
        return live.every((pid) => listed.has(pid))
      },
      "every process tracked",
      15_000
    ).catch(() => undefined)
    const listed = new Set(final.map((row) => row.pid).filter((pid): pid is number => pid !== null))
    let duplicates = 0
    for (const app of apps) {
      const instances = app.instances ?? 1
      duplicates += Math.max(0, processesWith(marker(app.name)).length - instances)
    }
    const untracked = live.filter((pid) => !listed.has(pid)).length
    const steady = final.filter((row) => row.name !== "crasher")
    const notOnline = steady.filter((row) => row.status !== "online").length
    const notAdopted = steady.filter((row) => row.pid !== initial.get(row.id)).length

    // Give the writers' last lines time to reach the files, then count.
    await sleep(500)
    const counts = [0, 1].map((i) => countLines(path.join(daemon.home, "logs", `writer-${i}-out.log`)))
    return {
      rounds,
      killedBeforeReady,
      duplicates,
      untracked,
      notOnline,
      notAdopted,
      linesLost: counts.reduce((sum, c) => sum + c.lost, 0),
      linesRepeated: counts.reduce((sum, c) => sum + c.repeated, 0),
      linesCut: counts.reduce((sum, c) => sum + c.cut, 0),
      linesLogged: counts.reduce((sum, c) => sum + c.logged, 0)
    }
  } finally {
    for (const child of daemons) if (child.pid !== undefined && isAlive(child.pid)) child.kill("SIGKILL")
    // Whatever the outcome, no process of the run outlives it.
    await daemon.cleanup()
    for (const pid of processesWith(run)) {
      try {
        process.kill(-pid, "SIGKILL")
      } catch {
        process.kill(pid, "SIGKILL")
      }
    }
  }
}
