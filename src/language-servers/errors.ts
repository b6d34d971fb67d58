/** The server of a language failed to start, stopped, or did not answer in time; the message says which. */
export class LanguageServerError extends Error {}

/** A search for references did not end in time; it was cancelled, and the server still serves. */
export class LateReferencesError extends LanguageServerError {}
