/**
 * Signal names and numbers as `pmfx sendSignal` takes them (docs/cli.md): `SIGUSR2`, `USR2`,
 * `usr2` or `12`. Only the signals this system knows; 0 (no signal, a mere existence test) is refused.
 */
import { Either } from "effect"
import * as os from "node:os"

const byName = os.constants.signals as Readonly<Record<string, number>>
const byNumber = new Map<number, NodeJS.Signals>()
for (const [name, number] of Object.entries(byName))
  if (!byNumber.has(number)) byNumber.set(number, name as NodeJS.Signals)

/** The highest real-time signal on Linux (SIGRTMAX). */
const SIGRTMAX = 64

/** A signal to send: its canonical name when it has one, and its number. */
export interface SignalSpec {
  readonly name: string
  readonly number: number
}

export const parseSignal = (text: string): Either.Either<SignalSpec, string> => {
  const trimmed = text.trim()
  if (/^\d{1,3}$/.test(trimmed)) {
    const number = Number(trimmed)
    if (number < 1 || number > SIGRTMAX) return Either.left(`${trimmed} is not a signal number (1-${SIGRTMAX})`)
    return Either.right({ name: byNumber.get(number) ?? `SIGRT${number}`, number })
  }
  const upper = trimmed.toUpperCase()
  const name = upper.startsWith("SIG") ? upper : `SIG${upper}`
  const number = byName[name]
  if (number === undefined) return Either.left(`${JSON.stringify(text)} is not a signal this system knows`)
  return Either.right({ name, number })
}

/** Whether Node can send the signal by this name (`process.kill`); real-time signals have none. */
export const isNamedSignal = (name: string): name is NodeJS.Signals => byName[name] !== undefined

/** Names offered in the error's suggestion. */
export const commonSignals = "SIGUSR1, SIGUSR2, SIGHUP, SIGINT, SIGTERM, SIGWINCH (or USR2, or a number like 12)"
