/** The project's repository on GitHub, where its docs are read (app.yml's `url` names it to GitHub too). */
const PROJECT_URL = "https://github.com/magis-bot/magis-bot";

/** The address of one page of the project's docs (`app.md`, `deploy.md`, …), or of the README when none is named. */
export function projectDocs(page?: string): string {
  return page ? `${PROJECT_URL}/blob/main/docs/${page}` : `${PROJECT_URL}#readme`;
}
