/**
 * Whether a TCP port is free, by binding it (docs/architecture.md §4): on IPv4 and IPv6, loopback and wildcard.
 * A family the machine does not have (no IPv6) does not count against the port.
 */
import { Effect } from "effect"
import * as net from "node:net"

const HOSTS = ["127.0.0.1", "0.0.0.0", "::1", "::"] as const

const canBind = (port: number, host: string): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer()
    server.unref()
    server.once("error", (error: NodeJS.ErrnoException) => {
      // No such address family here: nothing can be listening on it either.
      resolve(error.code === "EADDRNOTAVAIL" || error.code === "EAFNOSUPPORT")
    })
    server.listen({ port, host, exclusive: true, ipv6Only: host === "::" }, () => server.close(() => resolve(true)))
  })

export const isPortFree = (port: number): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    for (const host of HOSTS) if (!(await canBind(port, host))) return false
    return true
  })
