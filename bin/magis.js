#!/usr/bin/env node
import { main } from "../dist/cli.js";
import { runAsProcess } from "../dist/cli/io.js";

void runAsProcess("magis", () => main(process.argv.slice(2)));
