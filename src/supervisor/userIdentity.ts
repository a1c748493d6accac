/**
 * `user`/`group` (docs/architecture.md §4, docs/configuration.md "user, group"): names or numeric
 * ids looked up through the system's name service (NSS: /etc/passwd, LDAP, sssd… whatever
 * /etc/nsswitch.conf says) with `getent`, run without a shell. They give the uid/gid to spawn with
 * and the HOME, USER, LOGNAME and SHELL a login would set. Only root may switch identity.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"

export interface Identity {
  readonly uid: number | undefined
  readonly gid: number | undefined
  readonly env: Readonly<Record<string, string>>
}

/** getent's exit code for "no such entry". */
const NOT_FOUND = 2
const LOOKUP_TIMEOUT_MS = 10_000

type Lookup =
  | { readonly _tag: "Found"; readonly fields: ReadonlyArray<string> }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Failed"; readonly reason: string }

/** One entry of an NSS database (`passwd` or `group`) by name or id, split at its colons. */
export const getentEntry = (database: "passwd" | "group", key: string): Effect.Effect<Lookup> =>
  Effect.async<Lookup>((resume) => {
    const child = execFile(
      "getent",
      ["--", database, key],
      { timeout: LOOKUP_TIMEOUT_MS, encoding: "utf8" },
      (error, stdout) => {
        if (error === null) {
          const line = stdout.split("\n").find((l) => l !== "")
          resume(Effect.succeed(line === undefined ? { _tag: "Missing" } : { _tag: "Found", fields: line.split(":") }))
        } else if (error.code === NOT_FOUND) resume(Effect.succeed({ _tag: "Missing" }))
        else {
          const reason =
            error.code === "ENOENT"
              ? "getent is not installed (Debian: package libc-bin)"
              : `getent ${database} ${key} failed: ${error.message.split("\n")[0]}`
          resume(Effect.succeed({ _tag: "Failed", reason }))
        }
      }
    )
    return Effect.sync(() => child.kill())
  })

const isNumeric = (text: string) => /^\d+$/.test(text)

export type IdentityResult =
  | { readonly _tag: "Ok"; readonly identity: Identity }
  | { readonly _tag: "Problem"; readonly field: "user" | "group"; readonly reason: string }

/**
 * The identity for `user` and `group` without the root check: a name must exist; a numeric id
 * stays as it is (its entry, when there is one, gives the environment and the primary group).
 */
export const lookupIdentity = (user: string | null, group: string | null): Effect.Effect<IdentityResult> =>
  Effect.gen(function* () {
    let uid: number | undefined
    let gid: number | undefined
    let env: Record<string, string> = {}
    if (user !== null) {
      const entry = yield* getentEntry("passwd", user)
      if (entry._tag === "Failed") return { _tag: "Problem", field: "user", reason: entry.reason } as const
      if (entry._tag === "Missing" && !isNumeric(user))
        return { _tag: "Problem", field: "user", reason: `no user named ${user}` } as const
      if (entry._tag === "Found") {
        const [name = user, , id, primaryGroup, , home, shell] = entry.fields
        uid = Number(id)
        gid = Number(primaryGroup)
        env = { HOME: home || "/", USER: name, LOGNAME: name, SHELL: shell || "/bin/sh" }
      } else uid = Number(user)
    }
    if (group !== null) {
      const entry = yield* getentEntry("group", group)
      if (entry._tag === "Failed") return { _tag: "Problem", field: "group", reason: entry.reason } as const
      if (entry._tag === "Missing" && !isNumeric(group))
        return { _tag: "Problem", field: "group", reason: `no group named ${group}` } as const
      gid = entry._tag === "Found" ? Number(entry.fields[2]) : Number(group)
    }
    return { _tag: "Ok", identity: { uid, gid, env } } as const
  })

export const resolveIdentity = (user: string | null, group: string | null): Effect.Effect<IdentityResult> => {
  if (user === null && group === null)
    return Effect.succeed({ _tag: "Ok", identity: { uid: undefined, gid: undefined, env: {} } })
  if (process.getuid?.() !== 0) {
    return Effect.succeed({
      _tag: "Problem",
      field: user !== null ? "user" : "group",
      reason: "only a daemon running as root can run apps as another user or group"
    })
  }
  return lookupIdentity(user, group)
}
