/**
 * Set for the length of one TCP request made with the read-only API key (docs/api.md): handlers
 * that return secrets (an app's `config.env`) mask them when it is true.
 */
import { Effect, FiberRef } from "effect"
import { globalValue } from "effect/GlobalValue"

export const ReadOnlyRequest: FiberRef.FiberRef<boolean> = globalValue("pmfx/ReadOnlyRequest", () =>
  FiberRef.unsafeMake(false)
)

/** `config.env` with every value replaced by "***" when the request is read-only. */
export const maskEnvIfReadOnly = <A extends { readonly config: { readonly env: Readonly<Record<string, string>> } }>(
  detail: A
): Effect.Effect<A> =>
  Effect.map(FiberRef.get(ReadOnlyRequest), (readOnly) =>
    readOnly
      ? {
          ...detail,
          config: {
            ...detail.config,
            env: Object.fromEntries(Object.keys(detail.config.env).map((key) => [key, "***"]))
          }
        }
      : detail
  )
