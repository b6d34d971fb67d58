import fs from "node:fs";

/** The processes of this machine whose TMPDIR is `temp`: a language server's (see LanguageServer.temp), in its jail or not. */
export function serverProcesses(temp: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`TMPDIR=${temp}`);
      } catch {
        return false;
      }
    })
    .map(Number);
}
