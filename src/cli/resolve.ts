import { UsageError, type Command } from "./io.js";

/** `magis resolve` (filled in by its own issue). */
export const resolveCommand: Command = {
  name: "resolve",
  summary: "resolve (under construction)",
  usage: "Usage: magis resolve",
  run: async () => {
    throw new UsageError("'resolve' is not implemented yet");
  },
};
