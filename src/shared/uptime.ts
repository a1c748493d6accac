/**
 * Uptimes, written one way everywhere: the API's `<h>h <m>m <s>s` (docs/api.md §3), and for people
 * (`pmfx list`, `pmfx monit`, the dashboard) the same without its leading zero parts,
 * `0h 4m 19s` → `4m 19s`. No imports: the dashboard's browser bundle uses this file too.
 */

/** docs/api.md §3's uptime: `<h>h <m>m <s>s`. */
export const formatUptime = (ms: number): string => {
  const total = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  return `${h}h ${m}m ${s}s`
}

/** `0h 3m 2s` → `3m 2s`, `0h 0m 5s` → `5s`: leading zero parts add nothing. */
export const shortUptime = (uptime: string): string => uptime.replace(/^(0[hm] )+/, "")

/** An uptime of `ms` milliseconds as people read it: `1h 0m 3s`, `4m 19s`, `7s`. */
export const formatShortUptime = (ms: number): string => shortUptime(formatUptime(ms))

/** The seconds of an uptime written either way (`1h 2m 3s`, `4m 19s`, `7s`); 0 for anything else. */
export const uptimeSeconds = (text: string): number => {
  const match = /^(?:(\d+)h )?(?:(\d+)m )?(\d+)s$/.exec(text.trim())
  return match === null ? 0 : Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3])
}
