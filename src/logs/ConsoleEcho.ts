/**
 * Copies one child stream onto this process's stdout or stderr, line by line, each line prefixed
 * with the app's name and instance (`api/0 | `) or as one JSON object per line (`--json`): how the
 * container runtime's apps reach `docker logs` (docs/containers.md). It listens to the same
 * `data` events as the LogPipe that writes the files, so it sees every chunk in order; a partial
 * last line waits for the rest of it (or for the end of the stream).
 *
 * Writes are plain Node stream writes, one per chunk. On Linux, stdout and stderr are
 * synchronous for files, pipes and terminals (Node's documented behaviour), so a slow reader of
 * the container's output holds the app back instead of losing lines; when a write is buffered
 * anyway (a socket), Node keeps it and writes it in order.
 */
import type { LogStream } from "./LogEntry"

const LF = 0x0a

export interface EchoTarget {
  readonly write: (data: Buffer | string) => unknown
}

export const echoTargets = (): Record<LogStream, EchoTarget> => ({ out: process.stdout, err: process.stderr })

export const attachEcho = (
  stream: NodeJS.ReadableStream,
  app: string,
  instance: number,
  which: LogStream,
  json: boolean,
  target: EchoTarget
): void => {
  const prefix = Buffer.from(`${app}/${instance} | `)
  let pending: Buffer | null = null
  const render = (line: Buffer): Buffer | string =>
    json
      ? `${JSON.stringify({ timestamp: new Date().toISOString(), app, instance, stream: which, message: line.toString("utf8") })}\n`
      : Buffer.concat([prefix, line, Buffer.from("\n")])
  const onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk
    if (pending !== null) {
      data = Buffer.concat([pending, data])
      pending = null
    }
    const pieces: Array<Buffer | string> = []
    let start = 0
    for (let at = data.indexOf(LF); at !== -1; at = data.indexOf(LF, start)) {
      const end = at > start && data[at - 1] === 0x0d ? at - 1 : at
      pieces.push(render(data.subarray(start, end)))
      start = at + 1
    }
    if (start < data.length) pending = Buffer.from(data.subarray(start))
    if (pieces.length === 0) return
    target.write(json ? (pieces as Array<string>).join("") : Buffer.concat(pieces as Array<Buffer>))
  }
  const onEnd = () => {
    stream.off("data", onData)
    stream.off("end", onEnd)
    stream.off("close", onEnd)
    if (pending !== null && pending.length > 0) target.write(render(pending))
    pending = null
  }
  stream.on("data", onData)
  stream.on("end", onEnd)
  stream.on("close", onEnd)
}
