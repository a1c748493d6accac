/**
 * The daemon's TCP listener (`pmfx web`, `PUT /daemon/web`): opens, re-opens and closes it, and
 * keeps `DaemonInfo.web` (what `/api/status` shows) and `DaemonInfo.webSettings` (what state.json
 * remembers) in step. The implementation is `WebListenerLive` (it serves the API, whose daemon
 * handlers need this tag).
 */
import { Context, type Effect } from "effect"
import type { BadRequest, PortInUse } from "../domain/errors"
import type { WebSettings } from "./StateFile"

export interface WebListenerState {
  readonly host: string
  readonly port: number
  readonly auth: boolean
  readonly url: string
  readonly listening: boolean
}

export class WebListener extends Context.Tag("pmfx/WebListener")<
  WebListener,
  {
    /** Opens the listener with these settings (closing the one open before); PORT_IN_USE when taken. */
    readonly open: (settings: WebSettings) => Effect.Effect<WebListenerState, PortInUse | BadRequest>
    /** Closes the listener and forgets its settings; the closed one (or null when none was open). */
    readonly close: Effect.Effect<WebListenerState | null>
  }
>() {}
