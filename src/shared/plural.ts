/** `3 processes`, `1 process`. No imports: the launcher's fast paths use it as well as the CLI and the API. */
export const plural = (n: number, word: string, words = `${word}s`): string => `${n} ${n === 1 ? word : words}`
