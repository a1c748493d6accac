/**
 * A webhook URL as the API may show it (docs/decisions.md, "Webhook URLs in the delivery history"):
 * the scheme, host, port and path stay, so that a user can tell the targets apart; the user and
 * password, the query and the fragment become `***`, and so does every path segment of 16
 * characters or more — Slack's and Discord's webhook URLs carry their secret token in the path.
 */

/** Path segments this long (or longer) are taken for tokens. */
const TOKEN_LENGTH = 16

const MASK = "***"

export const redactUrl = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    // Not a URL at all: nothing in it can be told apart from a secret.
    return MASK
  }
  const userinfo = parsed.username !== "" || parsed.password !== "" ? `${MASK}@` : ""
  const path = parsed.pathname
    .split("/")
    .map((segment) => (segment.length >= TOKEN_LENGTH ? MASK : segment))
    .join("/")
  const query = parsed.search !== "" ? `?${MASK}` : ""
  const fragment = parsed.hash !== "" ? `#${MASK}` : ""
  return `${parsed.protocol}//${userinfo}${parsed.host}${path}${query}${fragment}`
}
