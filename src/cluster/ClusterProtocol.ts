/**
 * The messages between the daemon and an app's cluster primary (src/cluster/primary.ts), sent over
 * the IPC channel of the primary's spawn. Each worker is named by a `key` the daemon picks, so the
 * old and new worker of one instance (during a reload) are never confused.
 */
import { Schema } from "effect"

/** What the primary is started with (its argv[2], as JSON). */
export interface PrimarySetup {
  readonly name: string
  /** The app's script: what each worker runs. */
  readonly exec: string
  readonly args: ReadonlyArray<string>
  /** Node flags of each worker. */
  readonly execArgv: ReadonlyArray<string>
}

export type DaemonToPrimary =
  | {
      readonly type: "fork"
      readonly key: string
      /** The worker's stdout and stderr FIFOs (StdioPipes). */
      readonly out: string
      readonly err: string
      readonly env: Readonly<Record<string, string>>
    }
  /** Passes `message` to the worker (PM2's `shutdown_with_message` sends `'shutdown'`). */
  | { readonly type: "send"; readonly key: string; readonly message: string }

/** Outside data to the daemon: decoded, never trusted. */
export const PrimaryToDaemon = Schema.Union(
  Schema.Struct({ type: Schema.Literal("started") }),
  Schema.Struct({ type: Schema.Literal("forked"), key: Schema.String, pid: Schema.Int }),
  Schema.Struct({ type: Schema.Literal("fork-failed"), key: Schema.String, reason: Schema.String }),
  Schema.Struct({ type: Schema.Literal("listening"), key: Schema.String }),
  Schema.Struct({ type: Schema.Literal("ready"), key: Schema.String }),
  Schema.Struct({
    type: Schema.Literal("exit"),
    key: Schema.String,
    code: Schema.NullOr(Schema.Int),
    signal: Schema.NullOr(Schema.String)
  }),
  Schema.Struct({ type: Schema.Literal("error"), reason: Schema.String })
)
export type PrimaryToDaemon = typeof PrimaryToDaemon.Type
