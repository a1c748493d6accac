/**
 * The method and path template of every endpoint of the API contract, read from its groups.
 * (`HttpApi.reflect` gives the same endpoints but also works out each one's success and error
 * members: ~4 ms at each daemon start, for lists that need only the paths.)
 */
import { PmfxApi } from "./Api"

export interface ApiRoute {
  readonly method: string
  readonly path: string
}

export const API_ROUTES: ReadonlyArray<ApiRoute> = Object.values(PmfxApi.groups).flatMap((group) =>
  Object.values(group.endpoints).map((endpoint): ApiRoute => ({ method: endpoint.method, path: endpoint.path }))
)
