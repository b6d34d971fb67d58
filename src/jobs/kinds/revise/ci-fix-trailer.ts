/** The commit message trailer that numbers the bot's CI fixes: the next fix of a failing fix is one more. */
export const CI_FIX_TRAILER = "MAGIS-CI-Fix";
