/**
 * The `node:cluster` primary pmfx runs for an app in cluster mode (docs/decisions.md, "Cluster
 * mode: one primary per app, driven over IPC"). Built on its own as dist/cluster-primary.cjs and
 * run by the app's Node, in the app's cwd, identity and environment; plain Node without Effect,
 * since it lives beside the app's workers for the app's whole life and should stay small.
 *
 * It only does what the daemon asks over the IPC channel of its spawn (ClusterProtocol): fork a
 * worker with its own stdout/stderr FIFOs and environment, pass a message to a worker; and it
 * reports each worker's pid, `listening`, `'ready'` and exit. Restart policy, stops and logs stay
 * with the daemon. When the channel closes (the daemon died or is being replaced), it keeps its
 * workers serving and ends once the last of them has exited.
 */
import cluster, { type Worker } from "node:cluster"
import * as fs from "node:fs"
import type { DaemonToPrimary, PrimarySetup, PrimaryToDaemon } from "./ClusterProtocol"

const setup = JSON.parse(process.argv[2] ?? "{}") as PrimarySetup
process.title = `pmfx cluster primary ${setup.name}`
cluster.setupPrimary({ exec: setup.exec, args: [...setup.args], execArgv: [...setup.execArgv], silent: false })

const workers = new Map<string, Worker>()

const send = (message: PrimaryToDaemon): void => {
  if (process.connected) process.send?.(message)
}

const endIfOrphaned = (): void => {
  if (!process.connected && workers.size === 0) process.exit(0)
}

const fork = (key: string, out: string, err: string, env: Readonly<Record<string, string>>): void => {
  let outFd: number | undefined
  let errFd: number | undefined
  try {
    // Read-write, like every app's FIFOs (StdioPipes): a worker never sees its reader vanish.
    outFd = fs.openSync(out, fs.constants.O_RDWR)
    errFd = fs.openSync(err, fs.constants.O_RDWR)
    cluster.setupPrimary({ stdio: ["ignore", outFd, errFd, "ipc"] })
    const worker = cluster.fork(env)
    const pid = worker.process.pid
    if (pid === undefined) {
      send({ type: "fork-failed", key, reason: "the worker process could not be spawned" })
      return
    }
    workers.set(key, worker)
    worker.on("listening", () => send({ type: "listening", key }))
    worker.on("message", (message: unknown) => {
      if (message === "ready") send({ type: "ready", key })
    })
    worker.on("error", () => {
      // A message to a worker that is already gone: its exit follows.
    })
    worker.on("exit", (code, signal) => {
      workers.delete(key)
      send({ type: "exit", key, code, signal })
      endIfOrphaned()
    })
    send({ type: "forked", key, pid })
  } catch (error) {
    send({ type: "fork-failed", key, reason: error instanceof Error ? error.message : String(error) })
  } finally {
    // The worker holds its own copies now.
    if (outFd !== undefined) fs.closeSync(outFd)
    if (errFd !== undefined) fs.closeSync(errFd)
  }
}

process.on("message", (raw: unknown) => {
  const message = raw as DaemonToPrimary
  if (message.type === "fork") fork(message.key, message.out, message.err, message.env)
  else if (message.type === "send") {
    const worker = workers.get(message.key)
    if (worker !== undefined && worker.isConnected()) worker.send(message.message)
  }
})
process.on("disconnect", endIfOrphaned)
process.on("uncaughtException", (error) => {
  send({ type: "error", reason: error.stack ?? String(error) })
  process.exit(70)
})
send({ type: "started" })
