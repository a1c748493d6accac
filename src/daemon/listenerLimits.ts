/**
 * What every listener of the daemon (its unix socket and the TCP listener of `pmfx web`) allows a
 * client (docs/api.md, "Connection limits"): so that slow or idle clients cannot hold its file
 * descriptors until nobody else gets in.
 *
 * - the request head (request line and headers) must arrive within `headerTimeoutMs` of the
 *   connection or of the previous response (else `408` and the connection is closed);
 * - the whole request, body included, within `requestTimeoutMs` (same answer). Only the request:
 *   a response that streams for hours (`/logs?follow=true`) or a WebSocket (`/ws`, which leaves
 *   HTTP once upgraded) is not cut by it;
 * - a kept-alive connection with no request closes after `keepAliveTimeoutMs`;
 * - at most `maxConnections` connections at once. At the cap a new connection takes the place of
 *   the oldest one that has no request in progress (a half-open head, an idle keep-alive) —
 *   preferring one that has sent bytes, since one accepted in the same burst may not have been
 *   read yet: a flood of slow clients displaces itself, not the client that is being answered;
 *   when every connection is in a request the new one is closed at once.
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import { connectionsCheckWhileConnected } from "./connectionsCheckWhileConnected"

export interface ListenerLimits {
  readonly headerTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly keepAliveTimeoutMs: number
  readonly maxConnections: number
}

export const DEFAULT_HEADER_TIMEOUT_MS = 10_000
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000
const MIN_CONNECTIONS = 32
const MAX_CONNECTIONS = 1024

/** The soft limit on open files of this process (`/proc/self/limits`), when it can be read. */
const openFileLimit = (): number | undefined => {
  try {
    const line = fs
      .readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((entry) => entry.startsWith("Max open files"))
    const soft = Number(line?.slice("Max open files".length).trim().split(/\s+/)[0])
    return Number.isInteger(soft) && soft > 0 ? soft : undefined
  } catch {
    return undefined
  }
}

/**
 * A quarter of the open-file limit per listener, between 32 and 1024: the two listeners together
 * leave half the descriptors to the apps' pipes and log files (256 → 64 each; 1024 → 256).
 */
export const defaultMaxConnections = (): number => {
  const limit = openFileLimit()
  return limit === undefined
    ? MAX_CONNECTIONS
    : Math.min(MAX_CONNECTIONS, Math.max(MIN_CONNECTIONS, Math.floor(limit / 4)))
}

export const defaultListenerLimits = (): ListenerLimits => ({
  headerTimeoutMs: DEFAULT_HEADER_TIMEOUT_MS,
  requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  maxConnections: defaultMaxConnections()
})

interface Tracked {
  /** Requests received and not yet answered (a streamed response counts until it ends). */
  busy: number
  upgraded: boolean
}

/** The oldest connection with no request in progress (and not a WebSocket) that `accept`s. */
const oldestIdle = (
  connections: ReadonlyMap<net.Socket, Tracked>,
  accept: (socket: net.Socket) => boolean
): net.Socket | undefined => {
  for (const [socket, tracked] of connections)
    if (tracked.busy === 0 && !tracked.upgraded && accept(socket)) return socket
  return undefined
}

/** One warning a minute at most: a flood would otherwise fill the daemon log. */
const WARNING_INTERVAL_MS = 60_000

/** An HTTP server that applies `limits`; `name` says which listener in the daemon log. */
export const limitedServer = (limits: ListenerLimits, name: string, options: http.ServerOptions = {}): http.Server => {
  // Node enforces the two timeouts below on this tick (30 s by default, far too coarse for them).
  const checkingIntervalMs = Math.min(1_000, Math.max(100, Math.floor(limits.headerTimeoutMs / 5)))
  const server = http.createServer({
    ...options,
    headersTimeout: limits.headerTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkingIntervalMs
  })
  // ...only while there is a connection to check: an idle daemon's listener never wakes it.
  const check = connectionsCheckWhileConnected(server, checkingIntervalMs)
  const connections = new Map<net.Socket, Tracked>()
  let lastWarning = 0
  const warn = (message: string) => {
    const now = Date.now()
    if (now - lastWarning < WARNING_INTERVAL_MS) return
    lastWarning = now
    Effect.runFork(Effect.logWarning(`${name}: ${message} (further ones are not logged for a minute)`))
  }
  server.on("connection", (socket: net.Socket) => {
    if (connections.size >= limits.maxConnections) {
      // First a connection that has sent something (a partial head, or requests before): one
      // accepted in this same burst may simply not have been read yet, like this newcomer.
      const victim = oldestIdle(connections, (other) => other.bytesRead > 0) ?? oldestIdle(connections, () => true)
      const evicted = victim !== undefined
      if (victim !== undefined) {
        connections.delete(victim)
        victim.destroy()
      }
      if (!evicted) {
        warn(`${limits.maxConnections} connections are all in a request; refused a new one`)
        socket.destroy()
        return
      }
      warn(`${limits.maxConnections} connections open; closed the oldest one with no request in progress`)
    }
    connections.set(socket, { busy: 0, upgraded: false })
    check.connected()
    socket.once("close", () => {
      connections.delete(socket)
      check.disconnected(connections.size)
    })
  })
  server.on("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    const tracked = connections.get(request.socket)
    if (tracked === undefined) return
    tracked.busy++
    response.once("close", () => {
      tracked.busy--
    })
  })
  server.on("upgrade", (request: http.IncomingMessage) => {
    const tracked = connections.get(request.socket)
    if (tracked !== undefined) tracked.upgraded = true
  })
  return server
}
