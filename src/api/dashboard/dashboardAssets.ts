/**
 * The web dashboard's files (docs/dashboard.md), served by the TCP listener from the package: the
 * bundle scripts/build.mjs writes to dist/ui (index.html, and app-<hash>.js / .css). `GET /ui/`
 * and a browser's `GET /` (`Accept: text/html`) get index.html; JSON clients keep the service
 * record of `GET /`. Every answer carries a strict Content-Security-Policy (scripts, styles and
 * connections to this origin only, nothing inline), and the hashed files are cached for a year.
 * Files are read once, kept gzipped in memory, and only names found in the folder are served.
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as zlib from "node:zlib"

export const DASHBOARD_PATH = "/ui/"

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY"
}

const TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json"
}

interface Asset {
  readonly type: string
  readonly plain: Uint8Array
  readonly gzipped: Uint8Array
  readonly cache: string
}

/** dist/ui beside the daemon bundle (dist/daemon.cjs), or the built one when running from src/. */
const assetFolder = (): string | undefined =>
  [path.join(__dirname, "ui"), path.resolve(__dirname, "../../../dist/ui")].find((folder) =>
    fs.existsSync(path.join(folder, "index.html"))
  )

let loaded: Map<string, Asset> | undefined

const loadAssets = (): Map<string, Asset> => {
  if (loaded !== undefined) return loaded
  const assets = new Map<string, Asset>()
  const folder = assetFolder()
  if (folder !== undefined) {
    for (const name of fs.readdirSync(folder)) {
      const type = TYPES[path.extname(name)]
      if (type === undefined || !/^[\w.-]+$/.test(name)) continue
      const plain = fs.readFileSync(path.join(folder, name))
      assets.set(name, {
        type,
        plain,
        gzipped: zlib.gzipSync(plain, { level: 9 }),
        // index.html names the current hashed files: always revalidated. The rest never change.
        cache: name === "index.html" ? "no-cache" : "public, max-age=31536000, immutable"
      })
    }
  }
  loaded = assets
  return assets
}

const answer = (request: HttpServerRequest.HttpServerRequest, name: string) => {
  const asset = loadAssets().get(name)
  if (asset === undefined) {
    const built = loadAssets().has("index.html")
    return HttpServerResponse.unsafeJson(
      {
        success: false,
        error: built
          ? `Not found: ${request.method} ${request.url.split("?")[0]}`
          : "the dashboard is not built: run npm run build (it writes dist/ui)"
      },
      { status: 404, headers: SECURITY_HEADERS }
    )
  }
  const gzip = /\bgzip\b/.test(request.headers["accept-encoding"] ?? "")
  const body = gzip ? asset.gzipped : asset.plain
  return HttpServerResponse.uint8Array(request.method === "HEAD" ? new Uint8Array() : body, {
    contentType: asset.type,
    headers: {
      ...SECURITY_HEADERS,
      "cache-control": asset.cache,
      vary: "Accept-Encoding, Accept",
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      ...(request.method === "HEAD" ? { "content-length": String(body.byteLength) } : {})
    }
  })
}

/** Whether a request asks for the dashboard (and so skips the API key: the files hold no data). */
export const isDashboardRequest = (method: string, path: string, accept: string | undefined): boolean =>
  (method === "GET" || method === "HEAD") &&
  (path === "/ui" || path.startsWith(DASHBOARD_PATH) || (path === "/" && wantsHtml(accept)))

/** A browser's navigation asks for text/html first; curl and the CLI send `*\/*` or JSON. */
const wantsHtml = (accept: string | undefined): boolean => accept !== undefined && /^\s*text\/html\b/i.test(accept)

/** Serves the dashboard's files before the API sees the request; everything else goes to `app`. */
export const serveDashboard = <E, R>(
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const urlPath = request.url.split("?")[0] ?? "/"
    if (!isDashboardRequest(request.method, urlPath, request.headers["accept"])) return yield* app
    if (urlPath === "/ui") return HttpServerResponse.redirect(DASHBOARD_PATH, { status: 301 })
    const name = urlPath === "/" || urlPath === DASHBOARD_PATH ? "index.html" : urlPath.slice(DASHBOARD_PATH.length)
    return answer(request, name)
  })
