/** Facts about processes that tests check, read from /proc (zombies count as gone). */
import * as fs from "node:fs"

/** Whether a pid exists and is not a zombie (in containers PID 1 may never reap orphans). */
export const isAlive = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
