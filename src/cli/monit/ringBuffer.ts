/**
 * A fixed-capacity history that drops its oldest items (monit's CPU/memory samples and log lines).
 * Immutable, so that monit's state reducer stays pure: `push` gives a new buffer and the old one is
 * unchanged. The items sit in a circular array; a push copies it (capacities are a few hundred).
 */
export interface RingBuffer<A> {
  readonly capacity: number
  /** Circular storage; `start` is the index of the oldest item. */
  readonly slots: ReadonlyArray<A>
  readonly start: number
  readonly size: number
}

export const emptyRing = <A>(capacity: number): RingBuffer<A> => ({
  capacity: Math.max(1, Math.floor(capacity)),
  slots: [],
  start: 0,
  size: 0
})

/** Adds items at the newest end; the oldest ones fall out once the buffer is full. */
export const pushRing = <A>(ring: RingBuffer<A>, ...items: ReadonlyArray<A>): RingBuffer<A> => {
  if (items.length === 0) return ring
  const slots = ring.slots.slice()
  let { start, size } = ring
  for (const item of items) {
    if (size < ring.capacity) {
      slots[(start + size) % ring.capacity] = item
      size++
    } else {
      slots[start] = item
      start = (start + 1) % ring.capacity
    }
  }
  return { capacity: ring.capacity, slots, start, size }
}

/** The items, oldest first. */
export const ringItems = <A>(ring: RingBuffer<A>): Array<A> => {
  const out: Array<A> = []
  for (let i = 0; i < ring.size; i++) out.push(ring.slots[(ring.start + i) % ring.capacity]!)
  return out
}

/** A buffer holding these items (the newest `capacity` of them). */
export const ringOf = <A>(capacity: number, items: ReadonlyArray<A>): RingBuffer<A> =>
  pushRing(emptyRing<A>(capacity), ...items)
