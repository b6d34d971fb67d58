import { UsageError, type Command } from "./io.js";

/** `magis serve` (filled in by its own issue). */
export const serveCommand: Command = {
  name: "serve",
  summary: "serve (under construction)",
  usage: "Usage: magis serve",
  run: async () => {
    throw new UsageError("'serve' is not implemented yet");
  },
};
