/**
 * Keeps the CLI from loading Node's bundled undici for nothing. @effect/platform's API client asks
 * `payload instanceof FormData` before every request, and Node defines the global `FormData` as a
 * getter that loads undici (fetch, its web streams and dispatchers) on first read: ~20 ms of CPU
 * at every command that talks to the daemon, which never sends form data (docs/decisions.md,
 * "The suite, fifth pass"). Imported first by src/bin.ts, this replaces that getter with one that
 * gives a stand-in for the real constructor: `instanceof` answers false, without loading undici,
 * for any value that is not a FormData (a real one, which only undici can make, says so in its
 * `Symbol.toStringTag`); `new FormData()`, or any other use, gets the real constructor's answer.
 * Nothing changes when Node's property is not the expected configurable getter.
 */
const descriptor = Object.getOwnPropertyDescriptor(globalThis, "FormData")

if (descriptor?.get !== undefined && descriptor.configurable === true) {
  const nodeGetter = descriptor.get
  let real: typeof FormData | undefined
  const realFormData = (): typeof FormData => {
    real ??= nodeGetter.call(globalThis) as typeof FormData
    return real
  }
  const isFormData = (value: unknown): boolean =>
    typeof value === "object" &&
    value !== null &&
    Object.prototype.toString.call(value) === "[object FormData]" &&
    value instanceof realFormData()
  const standIn = new Proxy(function FormData() {}, {
    get: (_, key) => (key === Symbol.hasInstance ? isFormData : Reflect.get(realFormData(), key)),
    construct: (_, args, newTarget) => Reflect.construct(realFormData(), args, newTarget),
    apply: (_, self, args) => Reflect.apply(realFormData(), self, args)
  })
  Object.defineProperty(globalThis, "FormData", {
    configurable: true,
    enumerable: descriptor.enumerable ?? false,
    get: () => real ?? standIn,
    set: (value: typeof FormData) => {
      real = value
    }
  })
}

export {}
