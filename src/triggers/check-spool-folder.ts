import fs from "node:fs";

/**
 * Why the spool folder `dir` may not be used, or undefined when it may (or does not exist yet: the spool makes it,
 * mode 700). Whatever the folder holds is replayed as GitHub's deliveries and may queue jobs on its issue text, so
 * it must be a folder (not a link) owned by the bot's user that no one else may write to.
 */
export function spoolFolderProblem(dir: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return `the spool folder ${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}): ${ELSEWHERE}`;
  }
  const risk = "another local user could put files there that the bot would replay as GitHub's deliveries and run as jobs";
  if (stat.isSymbolicLink()) return `the spool folder ${dir} is a link: ${risk}; ${ELSEWHERE}`;
  if (!stat.isDirectory()) return `the spool folder ${dir} is not a folder: ${ELSEWHERE}`;
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    return `the spool folder ${dir} belongs to uid ${stat.uid}, not to the bot's user (uid ${uid}): ${risk}. Run \`chown ${uid} ${dir} && chmod 700 ${dir}\` if it is the bot's, or ${ELSEWHERE}`;
  }
  const writers = [stat.mode & 0o020 ? "its group" : "", stat.mode & 0o002 ? "every user" : ""].filter(Boolean).join(" and ");
  if (writers) {
    return `the spool folder ${dir} may be written by ${writers} (mode ${(stat.mode & 0o7777).toString(8).padStart(4, "0")}): ${risk}. Run \`chmod 700 ${dir}\`, or ${ELSEWHERE}`;
  }
  return undefined;
}

const ELSEWHERE = "set MAGIS_SPOOL_DIR to a folder the bot's user owns and no one else may write to (it is made mode 700 when missing)";
