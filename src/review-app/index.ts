// The reviewer web app (SPEC §5): server-rendered pages over the review queue and the ledger.
export { reviewApp, SECURITY_HEADERS, type ReviewAppOptions } from './review-app.js';
export { serveReviewApp, isLoopback, type ReviewServer } from './serve-review-app.js';
export { generateToken, hashToken } from './tokens.js';
export { escapeHtml, html, Html, type HtmlValue } from './html.js';
