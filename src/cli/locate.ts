import { UsageError, type Command } from "./io.js";

/** `magis locate` (filled in by its own issue). */
export const locateCommand: Command = {
  name: "locate",
  summary: "locate (under construction)",
  usage: "Usage: magis locate",
  run: async () => {
    throw new UsageError("'locate' is not implemented yet");
  },
};
