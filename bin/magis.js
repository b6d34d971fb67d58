#!/usr/bin/env node
import { main } from "../dist/cli.js";
import { processIo, runAsProcess } from "../dist/cli/io.js";

void runAsProcess("magis", (stopSignal) => main(process.argv.slice(2), { ...processIo, stopSignal }));
