/**
 * Facts about the running daemon that the API reports (`/api/status`, `/api/system`, `/health`)
 * and the signal that ends it (`pmfx kill`). A program embedding only the engine has no daemon,
 * so the API reads these from here rather than from the process it runs in.
 */
import { Context, Deferred, Effect, Layer, Ref } from "effect"
import { defaultListenerLimits, type ListenerLimits } from "./listenerLimits"
import type { WebSettings } from "./StateFile"

export interface WebListenerInfo {
  readonly host: string
  readonly port: number
  readonly auth: boolean
}

export interface DaemonInfoShape {
  readonly pid: number
  readonly startedAt: number
  readonly home: string
  readonly socket: string
  /** Completed to end the daemon (after the response to `kill` is sent). */
  readonly shutdown: Deferred.Deferred<void>
  /** Set once shutdown has begun: new requests get SERVICE_UNAVAILABLE. */
  readonly stopping: Ref.Ref<boolean>
  /** Set by `pmfx daemon restart`: the daemon ends leaving its apps running for the next one to adopt. */
  readonly handOver: Ref.Ref<boolean>
  /** Set by `pmfx kill`, cleared by `resurrect`: apps stay stopped across daemon starts. */
  readonly killed: Ref.Ref<boolean>
  readonly web: Ref.Ref<WebListenerInfo | null>
  /** The TCP listener's settings as saved in state.json (null: no listener wanted). */
  readonly webSettings: Ref.Ref<WebSettings | null>
  /** Timeouts and connection cap of both listeners (`pmfx daemon --header-timeout` …). */
  readonly listenerLimits: ListenerLimits
  /**
   * What hosts the engine: the background daemon, or `pmfx-runtime`, a container's main process,
   * which cannot hand its apps over (ending it ends the container; docs/containers.md).
   */
  readonly host: "daemon" | "runtime"
}

export class DaemonInfo extends Context.Tag("pmfx/DaemonInfo")<DaemonInfo, DaemonInfoShape>() {
  static readonly make = (options: {
    readonly home: string
    readonly socket: string
    readonly killed: boolean
    readonly listenerLimits?: ListenerLimits | undefined
    readonly host?: "daemon" | "runtime" | undefined
  }) =>
    Layer.effect(
      DaemonInfo,
      Effect.gen(function* () {
        return {
          pid: process.pid,
          startedAt: Date.now(),
          home: options.home,
          socket: options.socket,
          shutdown: yield* Deferred.make<void>(),
          stopping: yield* Ref.make(false),
          handOver: yield* Ref.make(false),
          killed: yield* Ref.make(options.killed),
          web: yield* Ref.make<WebListenerInfo | null>(null),
          webSettings: yield* Ref.make<WebSettings | null>(null),
          listenerLimits: options.listenerLimits ?? defaultListenerLimits(),
          host: options.host ?? "daemon"
        }
      })
    )
}
