/** The tooltip of a disabled action button under the read-only key (shared with the browser tests). */
export const READ_ONLY_REASON = "The read-only API key cannot change processes: sign in with the full key"
