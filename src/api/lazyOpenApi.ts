/**
 * `GET /api/openapi.json`, built on its first request instead of when the server starts.
 * `HttpApiBuilder.middlewareOpenApi` renders the document while the layer is built and keeps the
 * response (~130 KB of JSON) for the daemon's lifetime, on each listener; an idle daemon is never
 * asked for it (docs/benchmarks.md, "The daemon's memory, second pass"). The document is the same:
 * `OpenApi.fromApi` of the served API, rendered once and then kept, as the platform's route does.
 */
import { HttpApi, HttpApiBuilder, HttpServerResponse, OpenApi } from "@effect/platform"
import { Effect } from "effect"

export const OPENAPI_PATH = "/api/openapi.json"

export const lazyOpenApiRoute = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const { api } = yield* HttpApi.Api
    const document = yield* Effect.cached(Effect.sync(() => JSON.stringify(OpenApi.fromApi(api))))
    yield* router.get(
      OPENAPI_PATH,
      Effect.map(document, (body) => HttpServerResponse.text(body, { contentType: "application/json" }))
    )
  })
)
