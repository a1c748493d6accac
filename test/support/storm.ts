/**
 * Mutation storms against a real daemon (issue 11, defect 2): many create/start/stop/restart/
 * reload/delete requests on a few overlapping names at once, then a comparison of what `list`
 * says runs with what really runs — the daemon's descendants read from /proc.
 */
import * as fs from "node:fs"
import { isAlive } from "./processes"

/** Live descendants of `root` (by parent pid, read from /proc), `root` itself excluded. */
export const descendantsOfPid = (root: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      if (fields[0] === "Z") continue
      const ppid = Number(fields[1])
      const list = children.get(ppid)
      if (list === undefined) children.set(ppid, [Number(entry)])
      else list.push(Number(entry))
    } catch {
      // Exited while the table was read.
    }
  }
  const out: Array<number> = []
  const queue = [root]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child)
      queue.push(child)
    }
  }
  return out.filter(isAlive)
}

export interface ListedRow {
  readonly id: number
  readonly name: string
  readonly pid: number | null
  readonly status: string
}

/** What a storm left behind: processes that run without a row, and rows that claim a dead pid. */
export interface StormOutcome {
  readonly running: ReadonlyArray<number>
  readonly listed: ReadonlyArray<number>
  /** Running under the daemon but in no row of `list`. */
  readonly untracked: ReadonlyArray<number>
  /** In `list` with a pid that does not run. */
  readonly ghosts: ReadonlyArray<number>
}

export const compare = (running: ReadonlyArray<number>, rows: ReadonlyArray<ListedRow>): StormOutcome => {
  const listed = rows.filter((row) => row.pid !== null).map((row) => row.pid!)
  const listedSet = new Set(listed)
  const runningSet = new Set(running)
  return {
    running,
    listed,
    untracked: running.filter((pid) => !listedSet.has(pid)),
    ghosts: listed.filter((pid) => !runningSet.has(pid))
  }
}

/**
 * Polls until `list` and the daemon's descendants agree (rows still starting or stopping settle
 * within a few seconds); returns the last comparison either way, so a test can report figures.
 */
export const settle = async (
  list: () => Promise<ReadonlyArray<ListedRow>>,
  running: () => ReadonlyArray<number>,
  timeoutMs = 20_000
): Promise<StormOutcome> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const rows = await list()
    const outcome = compare(running(), rows)
    const busy = rows.some((row) => ["starting", "stopping", "restarting"].includes(row.status) && row.pid === null)
    if ((outcome.untracked.length === 0 && outcome.ghosts.length === 0 && !busy) || Date.now() > deadline)
      return outcome
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** A small deterministic pseudo-random sequence, so a failing storm can be replayed. */
export const seeded = (seed: number) => {
  let state = seed >>> 0
  return (below: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state % below
  }
}

type Call = (
  method: string,
  urlPath: string,
  body?: unknown
) => Promise<{ readonly status: number; readonly body: any }>

/** A sleep app as the API's one-app form takes it. */
export const sleeper = (name: string, instances = 1) => ({
  name,
  script: "sleep",
  args: ["1000"],
  instances,
  kill_timeout: "2s"
})

/** `list` through the API. */
export const listOf = (call: Call) => async (): Promise<ReadonlyArray<ListedRow>> => {
  const reply = await call("GET", "/api/processes")
  return reply.body as ReadonlyArray<ListedRow>
}

/** The shapes of HTTP reply a storm may see: anything else (a 500, a hang) is a defect. */
export const acceptable = (status: number) => status < 300 || status === 404 || status === 409

/**
 * Defect 2's first reproduction: an app is created, then restarted and deleted at the same
 * moment, `rounds` times. Returns every status code seen.
 */
export const restartRacingDelete = async (call: Call, rounds: number, prefix = "race"): Promise<Array<number>> => {
  const statuses: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const name = `${prefix}${i}`
    statuses.push((await call("POST", "/api/processes", sleeper(name))).status)
    const replies = await Promise.all([
      call("POST", `/api/processes/${name}/restart`),
      call("DELETE", `/api/processes/${name}`)
    ])
    statuses.push(...replies.map((reply) => reply.status))
  }
  return statuses
}

/** A reload of a two-instance app racing its delete, `rounds` times. */
export const reloadRacingDelete = async (call: Call, rounds: number, prefix = "reload"): Promise<Array<number>> => {
  const statuses: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const name = `${prefix}${i}`
    statuses.push((await call("POST", "/api/processes", sleeper(name, 2))).status)
    const replies = await Promise.all([
      call("POST", `/api/processes/${name}/reload`),
      call("DELETE", `/api/processes/${name}`)
    ])
    statuses.push(...replies.map((reply) => reply.status))
  }
  return statuses
}

/** `size` requests at once, a random mix of every mutation on `names`, `rounds` times. */
export const httpStorm = async (
  call: Call,
  options: {
    readonly size: number
    readonly rounds: number
    readonly names: ReadonlyArray<string>
    readonly seed: number
  }
) => {
  const pick = seeded(options.seed)
  const statuses: Array<number> = []
  for (let round = 0; round < options.rounds; round++) {
    const requests = Array.from({ length: options.size }, () => {
      const name = options.names[pick(options.names.length)]!
      switch (pick(7)) {
        case 0:
          return call("POST", "/api/processes", sleeper(name, 1 + pick(2)))
        case 1:
          return call("POST", `/api/processes/${name}/start`)
        case 2:
          return call("POST", `/api/processes/${name}/stop`)
        case 3:
          return call("POST", `/api/processes/${name}/restart`)
        case 4:
          return call("POST", `/api/processes/${name}/reload`)
        case 5:
          return call("DELETE", `/api/processes/${name}`)
        default:
          return call("POST", "/api/processes", sleeper(name))
      }
    })
    statuses.push(...(await Promise.all(requests)).map((reply) => reply.status))
  }
  return statuses
}
