// Profiles the process it is loaded into, from load to exit, and writes the profile as DIR/<pid>.cpuprofile (the format
// of node --cpu-prof, which NODE_OPTIONS may not carry). For a process the benchmark starts with an environment only:
//
//   NODE_OPTIONS="--import /abs/path/bench/lib/cpu-profile.mjs" MAGIS_BENCH_CPU_PROFILE_DIR=DIR node …
//
// Summarise it with `npx tsx bench/lib/profile-top.ts DIR/<pid>.cpuprofile`.
import fs from "node:fs";
import inspector from "node:inspector";
import path from "node:path";
import process from "node:process";

const dir = process.env.MAGIS_BENCH_CPU_PROFILE_DIR;
if (!dir) throw new Error("cpu-profile.mjs needs MAGIS_BENCH_CPU_PROFILE_DIR, the folder to write the profile to");
const session = new inspector.Session();
session.connect();
session.post("Profiler.enable");
session.post("Profiler.start");
// An in-process session answers at once, so the profile is written before the process is gone.
process.once("exit", () => {
  session.post("Profiler.stop", (error, result) => {
    if (error) return void process.stderr.write(`cpu-profile.mjs: the profile could not be taken: ${error.message}\n`);
    fs.writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
  });
});
