// Runs the `magis` command in its own process, as the memory test needs two separate runs.
import { main } from "../../../src/cli.js";

process.exitCode = await main(process.argv.slice(2));
