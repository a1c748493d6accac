/**
 * `user`/`group` (docs/architecture.md §4): names or numeric ids looked up in /etc/passwd and /etc/group, giving
 * the uid/gid to spawn with and the HOME, USER, LOGNAME and SHELL a login would set. Only root may
 * switch identity.
 */
import * as fs from "node:fs"

export interface Identity {
  readonly uid: number | undefined
  readonly gid: number | undefined
  readonly env: Readonly<Record<string, string>>
}

const readTable = (file: string): Array<Array<string>> => {
  try {
    return fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith("#"))
      .map((line) => line.split(":"))
  } catch {
    return []
  }
}

export const resolveIdentity = (
  user: string | null,
  group: string | null
): { readonly _tag: "Ok"; readonly identity: Identity } | { readonly _tag: "Problem"; readonly field: "user" | "group"; readonly reason: string } => {
  if (user === null && group === null) return { _tag: "Ok", identity: { uid: undefined, gid: undefined, env: {} } }
  if (process.getuid?.() !== 0) {
    return { _tag: "Problem", field: user !== null ? "user" : "group", reason: "only a daemon running as root can run apps as another user or group" }
  }
  let uid: number | undefined
  let gid: number | undefined
  let env: Record<string, string> = {}
  if (user !== null) {
    const entry = readTable("/etc/passwd").find((row) => row[0] === user || (/^\d+$/.test(user) && row[2] === user))
    if (entry === undefined && !/^\d+$/.test(user)) return { _tag: "Problem", field: "user", reason: `no user named ${user}` }
    uid = entry === undefined ? Number(user) : Number(entry[2])
    gid = entry === undefined ? undefined : Number(entry[3])
    if (entry !== undefined) env = { HOME: entry[5] ?? "/", USER: entry[0]!, LOGNAME: entry[0]!, SHELL: entry[6] || "/bin/sh" }
  }
  if (group !== null) {
    const entry = readTable("/etc/group").find((row) => row[0] === group || (/^\d+$/.test(group) && row[2] === group))
    if (entry === undefined && !/^\d+$/.test(group)) return { _tag: "Problem", field: "group", reason: `no group named ${group}` }
    gid = entry === undefined ? Number(group) : Number(entry[2])
  }
  return { _tag: "Ok", identity: { uid, gid, env } }
}
