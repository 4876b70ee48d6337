// Assertions waiting on server work that has not landed yet: while a reason is set here, the one
// test that checks it is reported as skipped with that reason instead of failing. Set to null
// once the server does it.

/** gg's `search` sends notifications/progress to a call with a progress token. */
export const GG_SEARCH_PROGRESS_PENDING = null;

/** gg's `search` checks the cancel flag, so a cancelled scan stops part way. */
export const GG_SEARCH_CANCEL_PENDING = null;
