/**
 * The typed client of the daemon's API (`api.processes.stop(...)`), each endpoint's function made
 * on its first use. `HttpApiClient.make` builds every endpoint up front — its path, its request
 * encoders and the response decoders of every success and error schema — ~20 ms of CPU at each CLI
 * start, for a command that calls one or two endpoints (docs/decisions.md, "The suite, fifth
 * pass"). `HttpApiClient.endpoint` builds the same function for one endpoint; the shape and types
 * are those of `HttpApiClient.make`.
 */
import { HttpApiClient, HttpClient } from "@effect/platform"
import { Effect } from "effect"
import { PmfxApi } from "../shared/Api"

/** The full client's type, as `HttpApiClient.make` gives it (this function is never called). */
const fullClient = (http: HttpClient.HttpClient, baseUrl: string) =>
  HttpApiClient.make(PmfxApi, { baseUrl }).pipe(Effect.provideService(HttpClient.HttpClient, http))

export type PmfxClient = Effect.Effect.Success<ReturnType<typeof fullClient>>

/** The API's group names (none of pmfx's groups is top-level: every endpoint is `api.<group>.<name>`). */
const groupNames = new Set(Object.keys(PmfxApi.groups))

export const lazyApiClient = (http: HttpClient.HttpClient, baseUrl: string): PmfxClient => {
  const groups = new Map<string, object>()
  const groupClient = (group: string): object => {
    const endpoints = new Map<string, unknown>()
    return new Proxy(
      {},
      {
        get: (_, name) => {
          if (typeof name !== "string") return undefined
          if (!endpoints.has(name)) {
            // Undefined for a name the group does not have, as the full client's object gives.
            const method: unknown = Effect.runSync(
              HttpApiClient.endpoint(PmfxApi, {
                group: group as never,
                endpoint: name as never,
                httpClient: http,
                baseUrl
              })
            )
            endpoints.set(name, method)
          }
          return endpoints.get(name)
        }
      }
    )
  }
  return new Proxy({} as PmfxClient, {
    get: (_, group) => {
      if (typeof group !== "string" || !groupNames.has(group)) return undefined
      let client = groups.get(group)
      if (client === undefined) {
        client = groupClient(group)
        groups.set(group, client)
      }
      return client
    }
  })
}
