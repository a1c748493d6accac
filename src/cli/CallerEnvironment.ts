/**
 * The environment and working folder of whoever runs the CLI. Configuration `${VAR}`s are read from
 * it, and (from the daemon issue on) `start` hands it to the apps it starts.
 */
import { Context, Layer } from "effect"

export class CallerEnvironment extends Context.Tag("pmfx/CallerEnvironment")<
  CallerEnvironment,
  { readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string }
>() {
  /** The current process's environment and folder (the program's edge). */
  static readonly live = Layer.sync(CallerEnvironment, () => ({ env: { ...process.env }, cwd: process.cwd() }))
}
