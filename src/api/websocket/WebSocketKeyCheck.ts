/**
 * How a `/ws` session proves the API key (docs/api.md): the TCP guard lets the handshake through
 * (SPEC: `/ws` is public) and sets this for the session. `Open` — no key configured, or the
 * handshake carried a valid one in a header; `FirstMessage` — process data flows only after a
 * first message `{type:"auth", key}` that `verify` accepts (its role goes back in the `auth`
 * message as `read_only`, so a dashboard can disable what the key may not do). The unix socket leaves it `Open`.
 */
import { FiberRef } from "effect"
import { globalValue } from "effect/GlobalValue"

export type WebSocketKeyCheck =
  | { readonly _tag: "Open" }
  | { readonly _tag: "FirstMessage"; readonly verify: (key: string) => "full" | "read-only" | null }

export const WebSocketKeyCheck: FiberRef.FiberRef<WebSocketKeyCheck> = globalValue("pmfx/WebSocketKeyCheck", () =>
  FiberRef.unsafeMake<WebSocketKeyCheck>({ _tag: "Open" })
)
