// The GitHub Action's entry point: action.yml runs it bundled (dist-action/index.js, written by `npm run build:action`),
// in a checkout of the action that has no node_modules. It is `magis action`, and pulls in that command alone.
import { actionCommand } from "./cli/action.js";
import { processIo, runAsProcess } from "./cli/io.js";

void runAsProcess("magis action", (stopSignal) => actionCommand.run([], { ...processIo, stopSignal }));
