/**
 * The rules for opening the TCP listener (docs/api.md), shared by `pmfx web` (which asks a running
 * daemon) and `pmfx daemon --web` (which opens it at start): keys from the options or from
 * PMFX_API_KEY / PMFX_READONLY_API_KEY, no empty key, a port in range, no non-loopback host
 * without a key unless `--allow-insecure`, and a warning when there is no key at all.
 */
import { isLoopbackHost } from "../api/webGuard"
import type { WebSettings } from "./StateFile"

export const DEFAULT_WEB_HOST = "localhost"
export const DEFAULT_WEB_PORT = 9615

export interface ListenerRequest {
  readonly host: string
  readonly port: number
  /** From the command line; undefined falls back to the environment. */
  readonly apiKey: string | undefined
  readonly readOnlyApiKey: string | undefined
  readonly corsOrigins: ReadonlyArray<string>
  readonly verbose: boolean
  readonly allowInsecure: boolean
  /** `--metrics-public`: `GET /metrics` needs no key (docs/metrics.md). */
  readonly metricsPublic?: boolean | undefined
}

export interface ListenerEnvironment {
  readonly PMFX_API_KEY?: string | undefined
  readonly PMFX_READONLY_API_KEY?: string | undefined
}

export type ListenerCheck =
  | { readonly _tag: "Refused"; readonly message: string }
  | { readonly _tag: "Accepted"; readonly settings: WebSettings; readonly warning: string | null }

export const NO_KEY_WARNING =
  "warning: the web listener has no API key: every local user (and every program) that can reach it can control your processes"

/** An exported but empty variable means "no key", as if it were not set. */
const nonEmpty = (value: string | undefined) => (value === undefined || value === "" ? undefined : value)

export const checkListener = (request: ListenerRequest, env: ListenerEnvironment): ListenerCheck => {
  const apiKey = request.apiKey ?? nonEmpty(env.PMFX_API_KEY)
  const readOnlyApiKey = request.readOnlyApiKey ?? nonEmpty(env.PMFX_READONLY_API_KEY)
  if (!Number.isInteger(request.port) || request.port < 1 || request.port > 65535) {
    return { _tag: "Refused", message: `--port must be between 1 and 65535, not ${request.port}` }
  }
  if (apiKey === "" || readOnlyApiKey === "") return { _tag: "Refused", message: "an API key cannot be empty" }
  const keyed = apiKey !== undefined || readOnlyApiKey !== undefined
  if (!keyed && !isLoopbackHost(request.host) && !request.allowInsecure) {
    return {
      _tag: "Refused",
      message: `refusing to listen on ${request.host} without an API key: anyone who can reach it could run commands as you.\n  suggestion: give --api-key (or PMFX_API_KEY), listen on localhost, or pass --allow-insecure`
    }
  }
  return {
    _tag: "Accepted",
    settings: {
      host: request.host,
      port: request.port,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(readOnlyApiKey === undefined ? {} : { readOnlyApiKey }),
      corsOrigins: [...request.corsOrigins],
      verbose: request.verbose,
      ...(request.metricsPublic === true ? { metricsPublic: true } : {})
    },
    warning: keyed ? null : NO_KEY_WARNING
  }
}
