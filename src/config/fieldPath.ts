/** Paths of settings as users read them: `apps[1].health_check.url`. */
export const joinPath = (base: string, key: string | number): string =>
  typeof key === "number" ? `${base}[${key}]` : base === "" ? key : `${base}.${key}`

export const formatPath = (keys: ReadonlyArray<PropertyKey>, base = ""): string =>
  keys.reduce<string>((path, key) => joinPath(path, typeof key === "number" ? key : String(key)), base)
