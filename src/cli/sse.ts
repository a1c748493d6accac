/**
 * Server-Sent Events, read line by line (the subset of the WHATWG rules the daemon's
 * `logs?follow=true` stream uses): `event:` names the event, `data:` lines are joined with
 * newlines, a blank line dispatches, a line starting with `:` is a comment (`: keep-alive`).
 */
import { Option, Stream } from "effect"

export interface SseEvent {
  readonly event: string
  readonly data: string
}

export interface SseState {
  readonly event: string
  readonly data: ReadonlyArray<string>
}

export const initialSseState: SseState = { event: "", data: [] }

/** Feeds one line (without its line break); gives the event a blank line completes, if any. */
export const sseStep = (state: SseState, line: string): readonly [SseState, Option.Option<SseEvent>] => {
  if (line === "") {
    // An event without data is not dispatched (WHATWG): it only resets the buffer.
    if (state.data.length === 0) return [initialSseState, Option.none()]
    return [
      initialSseState,
      Option.some({ event: state.event === "" ? "message" : state.event, data: state.data.join("\n") })
    ]
  }
  if (line.startsWith(":")) return [state, Option.none()]
  const colon = line.indexOf(":")
  const field = colon === -1 ? line : line.slice(0, colon)
  let value = colon === -1 ? "" : line.slice(colon + 1)
  if (value.startsWith(" ")) value = value.slice(1)
  if (field === "event") return [{ ...state, event: value }, Option.none()]
  if (field === "data") return [{ ...state, data: [...state.data, value] }, Option.none()]
  // `id`, `retry` and unknown fields carry nothing pmfx uses.
  return [state, Option.none()]
}

/** The events of a byte stream of `text/event-stream`. */
export const sseEvents = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<SseEvent, E, R> =>
  bytes.pipe(
    Stream.decodeText(),
    Stream.splitLines,
    Stream.mapAccum(initialSseState, sseStep),
    Stream.filterMap((event) => event)
  )
