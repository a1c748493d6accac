// A small HTTP server: each instance listens on the PORT pmfx gives it.
const http = require("node:http")
const port = Number(process.env.PORT ?? 4000)
const server = http.createServer((_, response) => response.end(JSON.stringify({ instance: process.env.NODE_APP_INSTANCE, port }) + "\n"))
server.listen(port, "0.0.0.0", () => console.log(`listening on 0.0.0.0:${port}`))
process.on("SIGTERM", () => server.close(() => process.exit(0)))
