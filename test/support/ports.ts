/**
 * Where tests pick fixed ports: 20000–31999, below the kernel's ephemeral range (32768–60999 here,
 * /proc/sys/net/ipv4/ip_local_port_range). A port picked in that range can be taken at any moment
 * as the source port of some outgoing connection of a test running alongside.
 */
export const PORT_RANGE_START = 20_000
const PORT_RANGE_SIZE = 12_000

/** A random first port for `count` consecutive ports (the caller checks they are free). */
export const randomPortBase = (count = 1): number =>
  PORT_RANGE_START + Math.floor(Math.random() * (PORT_RANGE_SIZE - count))
