/**
 * One `/ws` connection (docs/architecture.md §9). After the handshake (and the key, when one is needed) the
 * client gets `process_list`, then every status change, metrics sample, alert and — once it sent
 * `subscribe` — log lines.
 *
 * Memory stays bounded whatever the client does: messages wait in a queue of at most
 * `OUTBOUND_CAPACITY`; the writer sends only while the socket's own buffer is under
 * `SOCKET_HIGH_WATER` (the platform's `write` never waits, so it checks the node socket), and a
 * client that stops reading — its queue full — is cut off at once. Incoming messages are handled
 * one at a time, in order (the platform would run each in its own fiber).
 */
import { HttpServerRequest, Socket } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Deferred, Duration, Effect, Fiber, FiberHandle, FiberRef, Option, Queue } from "effect"
import type * as net from "node:net"
import { EventBus } from "../../events/EventBus"
import { SamplingDemand } from "../../monitor/SamplingDemand"
import type { PmfxEvent } from "../../events/PmfxEvent"
import { ProcessManager } from "../../supervisor/ProcessManager"
import { MAX_CLIENT_MESSAGE_BYTES, parseClientMessage } from "./ClientMessage"
import { LiveFeed } from "./LiveFeed"
import { errorMessage, logMessage, serverMessage } from "./ServerMessage"
import { WebSocketKeyCheck } from "./WebSocketKeyCheck"
import { ReadOnlyRequest } from "../readOnly"

/** Messages, and their bytes, waiting for a client that reads too slowly; more and it is disconnected. */
export const OUTBOUND_CAPACITY = 1024
export const OUTBOUND_BYTES = 4 * 1024 * 1024
/** Bytes the node socket may hold unsent before the writer waits for it to drain. */
const SOCKET_HIGH_WATER = 1024 * 1024
/** Messages a client may send faster than they are handled before it is disconnected. */
const INBOUND_CAPACITY = 64
/** How long a client that must authenticate by message may stay silent. */
const AUTH_TIMEOUT = Duration.seconds(10)
/** A closed session's socket is destroyed if the close handshake has not finished by then. */
const CLOSE_GRACE_MS = 1000

/** Close codes: 4401 the key was missing or wrong (HTTP's 401 in the 4000 range WebSockets leave to applications). */
const CLOSE_UNAUTHORIZED = 4401
/** 1001 "going away" (RFC 6455 §7.4.1): the listener is closing or the daemon is shutting down. */
const CLOSE_GOING_AWAY = 1001
/** How long the going-away close frame may take to be handed to the socket before the session ends anyway. */
const GOING_AWAY_WRITE_MS = 100

type Outbound = string | Socket.CloseEvent

const waitForDrain = (socket: net.Socket): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const done = () => {
      socket.off("drain", done)
      socket.off("close", done)
      resume(Effect.void)
    }
    socket.on("drain", done)
    socket.on("close", done)
    return Effect.sync(() => {
      socket.off("drain", done)
      socket.off("close", done)
    })
  })

export const webSocketSession = Effect.gen(function* () {
  const feed = yield* LiveFeed
  const bus = yield* EventBus
  const demand = yield* SamplingDemand
  const manager = yield* ProcessManager
  const request = yield* HttpServerRequest.HttpServerRequest
  const keyCheck = yield* FiberRef.get(WebSocketKeyCheck)
  const nodeSocket = NodeHttpServerRequest.toIncomingMessage(request).socket
  const socket = yield* request.upgrade
  const write = yield* socket.writer

  const outbound = yield* Queue.dropping<Outbound>(OUTBOUND_CAPACITY)
  const inbound = yield* Queue.dropping<string | Uint8Array>(INBOUND_CAPACITY)
  const opened = yield* Deferred.make<void>()
  let cutOff = false
  let authenticated = keyCheck._tag === "Open"
  /** Whether the key that opened the session is the read-only one (`auth` says so). */
  let sessionReadOnly = yield* FiberRef.get(ReadOnlyRequest)

  /** Ends a client that cannot keep up (or floods us): no close frame could reach it anyway. */
  const disconnect = (why: string) =>
    Effect.suspend(() => {
      if (cutOff) return Effect.void
      cutOff = true
      nodeSocket.destroy()
      return Effect.logInfo(`websocket client disconnected: ${why}`)
    })

  let queuedBytes = 0
  const sizeOf = (message: Outbound) => (typeof message === "string" ? message.length : 0)

  const send = (message: Outbound) =>
    Effect.suspend(() => {
      if (cutOff) return Effect.void
      const size = sizeOf(message)
      if (queuedBytes + size > OUTBOUND_BYTES) return disconnect(`it stopped reading (${queuedBytes} bytes waiting)`)
      return Effect.flatMap(Queue.offer(outbound, message), (accepted) => {
        if (!accepted) return disconnect(`it stopped reading (${OUTBOUND_CAPACITY} messages waiting)`)
        queuedBytes += size
        return Effect.void
      })
    })

  const refuse = (message: string) =>
    Effect.zipRight(
      send(errorMessage("UNAUTHORIZED", message)),
      send(new Socket.CloseEvent(CLOSE_UNAUTHORIZED, "unauthorized"))
    )

  const forward = (events: Queue.Dequeue<PmfxEvent>) =>
    Effect.forever(
      Effect.gen(function* () {
        const event = yield* Queue.take(events)
        for (const message of yield* feed.messagesOf(event)) yield* send(message)
      })
    )

  /** The live feed: subscribed before the snapshot, so no change after it is missed. */
  const startFeed = Effect.gen(function* () {
    const events = yield* bus.subscribe()
    // Every session receives the metrics samples: sample at the full rate while it is connected.
    yield* demand.watch
    yield* send(yield* feed.processList)
    yield* Effect.forkScoped(forward(events))
  })

  const logs = yield* FiberHandle.make()

  /** Log lines of every app, or of the rows and app names `targets` resolve to. */
  const subscribeLogs = (targets: ReadonlyArray<string | number> | undefined) =>
    Effect.gen(function* () {
      const ids = new Set<number>()
      const names = new Set<string>()
      for (const target of targets ?? []) {
        const rows = yield* manager.resolve(String(target))
        for (const row of rows) {
          ids.add(row.id)
          // A name keeps matching rows added later (more instances).
          if (typeof target === "string" && target === row.name) names.add(row.name)
        }
      }
      const everything = targets === undefined
      const events = Effect.scoped(
        Effect.gen(function* () {
          const queue = yield* bus.subscribe({ logs: true })
          return yield* Effect.forever(
            Effect.flatMap(Queue.take(queue), (event) =>
              event._tag === "LogLine" && (everything || ids.has(event.id) || names.has(event.name))
                ? send(logMessage(event))
                : Effect.void
            )
          )
        })
      )
      yield* FiberHandle.run(logs, events)
      yield* send(
        serverMessage("subscribed", { channels: ["logs"], ids: everything ? null : [...ids].sort((a, b) => a - b) })
      )
    })

  const handle = (raw: string | Uint8Array) =>
    Effect.gen(function* () {
      const size = typeof raw === "string" ? Buffer.byteLength(raw) : raw.byteLength
      const decoded =
        size > MAX_CLIENT_MESSAGE_BYTES
          ? null
          : parseClientMessage(typeof raw === "string" ? raw : Buffer.from(raw).toString("utf8"))
      if (!authenticated) {
        const role =
          decoded !== null &&
          decoded._tag === "Right" &&
          decoded.right.type === "auth" &&
          keyCheck._tag === "FirstMessage"
            ? keyCheck.verify(decoded.right.key)
            : null
        if (role !== null) {
          authenticated = true
          sessionReadOnly = role === "read-only"
          yield* send(serverMessage("auth", { authenticated: true, read_only: sessionReadOnly }))
          return yield* startFeed
        }
        return yield* refuse(
          'Invalid or missing API key: send {"type":"auth","key":"..."} first, or the key in a header of the handshake'
        )
      }
      if (decoded === null) {
        return yield* send(
          errorMessage("BAD_REQUEST", "Invalid message: too large", {
            field: "message",
            reason: "too large",
            suggestion: `send at most ${MAX_CLIENT_MESSAGE_BYTES} bytes per message; client messages are small`
          })
        )
      }
      if (decoded._tag === "Left") {
        // As the HTTP API's BAD_REQUEST: `Invalid <field>: <reason>`, with a suggestion.
        const { reason, suggestion } = decoded.left
        return yield* send(
          errorMessage("BAD_REQUEST", `Invalid message: ${reason}`, { field: "message", reason, suggestion })
        )
      }
      const message = decoded.right
      switch (message.type) {
        case "auth":
          // Already in: a session opened by its first message still checks a later key, so a
          // client is never told a wrong key was accepted (it keeps the key it was opened with).
          if (keyCheck._tag === "FirstMessage" && keyCheck.verify(message.key) === null) {
            return yield* send(
              errorMessage(
                "UNAUTHORIZED",
                "Invalid API key; the session stays authenticated with the key it was opened with"
              )
            )
          }
          return yield* send(serverMessage("auth", { authenticated: true, read_only: sessionReadOnly }))
        case "ping":
          return yield* send(serverMessage("pong", {}))
        case "unsubscribe":
          // The whole subscription ends (there is no unsubscribing from some apps): `ids: null`,
          // every app's lines, as in a `subscribed` for all of them.
          yield* FiberHandle.clear(logs)
          return yield* send(serverMessage("unsubscribed", { channels: ["logs"], ids: null }))
        case "subscribe":
          return yield* subscribeLogs(message.ids).pipe(
            Effect.catchTag("PROCESS_NOT_FOUND", (error) =>
              send(errorMessage(error._tag, error.message, error.details))
            )
          )
      }
    })

  const writeOut = Effect.forever(
    Effect.gen(function* () {
      const message = yield* Queue.take(outbound)
      queuedBytes -= sizeOf(message)
      if (nodeSocket.writableLength > SOCKET_HIGH_WATER) yield* waitForDrain(nodeSocket)
      yield* write(message)
    })
  )

  const session = Effect.gen(function* () {
    yield* Deferred.await(opened)
    yield* Effect.forkScoped(writeOut.pipe(Effect.catchAll(() => disconnect("the connection failed"))))
    if (authenticated) yield* startFeed
    else {
      yield* Effect.forkScoped(
        Effect.sleep(AUTH_TIMEOUT).pipe(
          Effect.zipRight(Effect.suspend(() => (authenticated ? Effect.void : refuse("no API key received in time"))))
        )
      )
    }
    yield* Effect.forever(Effect.flatMap(Queue.take(inbound), handle))
  })

  yield* Effect.forkScoped(session)
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      // The platform closes the WebSocket politely; one that never answers the close is dropped.
      if (!nodeSocket.destroyed) setTimeout(() => nodeSocket.destroy(), CLOSE_GRACE_MS).unref()
    })
  )
  const reading = yield* socket
    .runRaw(
      (data) => {
        if (!inbound.unsafeOffer(data)) return disconnect(`it sent more than ${INBOUND_CAPACITY} messages at once`)
      },
      { onOpen: Deferred.succeed(opened, undefined) }
    )
    // A client that goes away, with or without a close code, ends the session normally.
    // In the session's scope, not a child fiber: an interrupted fiber passes the interruption on
    // to its children at once, and the close frame below must go out before `runRaw` ends.
    .pipe(
      Effect.catchAll(() => Effect.void),
      Effect.forkScoped
    )

  /**
   * The session is interrupted when its listener closes (`pmfx web --stop`, a re-open with other
   * settings) or the daemon shuts down. Interrupting `runRaw` would close the WebSocket with no
   * code (the client sees 1005), so the close frame with 1001 goes out first, while the socket is
   * still open. The write waits for the socket to be open, hence the bound on it.
   */
  const goingAway = Effect.gen(function* () {
    if (
      cutOff ||
      nodeSocket.destroyed ||
      !(yield* Deferred.isDone(opened)) ||
      Option.isSome(yield* Fiber.poll(reading))
    )
      return
    yield* write(new Socket.CloseEvent(CLOSE_GOING_AWAY, "going away")).pipe(
      Effect.interruptible,
      Effect.timeout(Duration.millis(GOING_AWAY_WRITE_MS)),
      Effect.ignore
    )
  })
  yield* Fiber.join(reading).pipe(Effect.onInterrupt(() => Effect.zipRight(goingAway, Fiber.interrupt(reading))))
}).pipe(Effect.scoped)
