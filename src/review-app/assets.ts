// The app's two static files. Served from the app's own origin: the Content-Security-Policy allows
// scripts and styles from there only, never inline.

/** The stylesheet: readable at any width, contrast at least 4.5:1, a visible focus ring. */
export const STYLESHEET = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --bg: #ffffff; --line: #d0d0d0; --accent: #0b4f9c; --bad: #a4161a; --good: #1b5e20; --warn: #7a4a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #ff9900; outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 2; }
header.status { display: flex; flex-wrap: wrap; gap: 4px 18px; align-items: center; padding: 8px 16px; background: #f2f4f7; border-bottom: 1px solid var(--line); }
header.status dl { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 0; }
header.status dt { color: var(--muted); display: inline; } header.status dd { display: inline; margin: 0 0 0 4px; font-weight: 600; }
header.status .degraded { color: var(--bad); }
header.status .who { margin-left: auto; display: flex; gap: 8px; align-items: center; }
main { padding: 12px 16px 40px; max-width: 1200px; }
h1 { font-size: 1.35rem; margin: 8px 0 12px; } h2 { font-size: 1.1rem; margin: 20px 0 8px; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f7f7f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: 0 6px; border-radius: 4px; border: 1px solid currentColor; font-size: 0.85rem; }
.badge.unverified { color: var(--bad); } .badge.sampled { color: var(--warn); } .badge.verified { color: var(--good); }
.claim { color: var(--warn); }
form.inline { display: inline; }
button { font: inherit; padding: 4px 12px; border: 1px solid #555; border-radius: 4px; background: #fff; color: var(--fg); cursor: pointer; }
button.approve { background: var(--good); color: #fff; border-color: var(--good); } button.reject { background: var(--bad); color: #fff; border-color: var(--bad); }
button:disabled { opacity: 0.6; cursor: not-allowed; }
select, textarea, input { font: inherit; padding: 4px; border: 1px solid #555; border-radius: 4px; }
fieldset { border: 1px solid var(--line); border-radius: 6px; } legend { font-weight: 600; }
.verdict-form .row { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; margin: 6px 0; }
.verdict-form label { display: flex; flex-direction: column; gap: 2px; }
kbd { border: 1px solid #888; border-bottom-width: 2px; border-radius: 3px; padding: 0 4px; font-size: 0.85em; }
.keys { color: var(--muted); font-size: 0.9rem; }
.listing { margin: 0; padding: 0 0 0 4.5em; font: 13px/1.4 ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; background: #fafafa; border: 1px solid var(--line); overflow-x: auto; }
.listing li { white-space: pre; padding-right: 8px; } .listing li::marker { color: #6b6b6b; }
.hidden-chars { outline: 2px solid #cf222e; } .hidden-mark { color: #cf222e; font-weight: 600; }
.diff-add { background: #e6ffec; } .diff-del { background: #ffebe9; } .diff-hunk { background: #ddf4ff; color: #0a3069; } .diff-meta { font-weight: 600; }
.tok-comment { color: #57606a; font-style: italic; } .tok-string { color: #0a3069; } .tok-number { color: #8250df; } .tok-keyword { color: #a40e26; font-weight: 600; }
.truncated, .notice { padding: 6px 10px; background: #fff8c5; border: 1px solid #d4a72c; border-radius: 4px; }
.error { padding: 6px 10px; background: #ffebe9; border: 1px solid var(--bad); border-radius: 4px; }
pre.text { white-space: pre-wrap; word-break: break-word; background: #fafafa; border: 1px solid var(--line); padding: 8px; margin: 0; font: 13px/1.4 ui-monospace, Menlo, Consolas, monospace; }
.filters { display: flex; gap: 12px; align-items: end; margin-bottom: 10px; flex-wrap: wrap; }
.filters label { display: flex; flex-direction: column; }
#suggestions ul { margin: 0; padding-left: 18px; }
.skip-label { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
#rule-form p { display: flex; flex-direction: column; gap: 2px; max-width: 40em; } #rule-form small { color: #555; }
#rule-form fieldset label { display: block; } tr.disabled { color: #555; }
a.button { display: inline-block; padding: 4px 12px; border: 1px solid #555; border-radius: 4px; text-decoration: none; }
[data-nav-row].current { outline: 3px solid #ff9900; outline-offset: -3px; background: #fff8e6; }
.badge.running { color: var(--accent); } .outcome-complete, .outcome-complete_noop { color: var(--good); } .outcome-failed_with_evidence, .outcome-blocked { color: var(--bad); }
.change-new { color: var(--bad); font-weight: 600; } .change-fixed { color: var(--good); font-weight: 600; } .change-still_failing { color: var(--warn); font-weight: 600; } .change-passing { color: var(--muted); }
.status-fail, .status-error { color: var(--bad); } .status-pass { color: var(--good); }
dl.run-summary { display: flex; flex-wrap: wrap; gap: 4px 22px; margin: 0 0 10px; } dl.run-summary dt { color: var(--muted); } dl.run-summary dd { margin: 0; font-weight: 600; }
ol.timeline { list-style: none; padding: 0; } ol.timeline > li { border-left: 3px solid var(--line); padding: 2px 0 8px 12px; margin: 0 0 6px; }
ol.timeline h3 { font-size: 1rem; margin: 6px 0; } ol.timeline h4 { font-size: 0.95rem; margin: 6px 0; }
.signature-valid { color: var(--good); } .signature-invalid, .signature-unknown_key { color: var(--bad); }
figure.scores { margin: 8px 0; } figure.chart { margin: 8px 0 12px; overflow-x: auto; } .legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 0.85rem; color: var(--muted); } .legend-entry svg { vertical-align: -1px; } ul.cases { max-height: 20em; overflow-y: auto; font-size: 0.9rem; }
`;

/**
 * The app's only script, loaded from its origin. Keyboard shortcuts: `a` approve, `r` reject, `1`–`9`
 * choose the nth reason label, `c` the comment, `n` next item, `e` the evidence, `q` back; `j`/`k` move
 * through a list's rows (the queue, the runs, a run's timeline) and Enter opens the row. Keys typed into
 * a text field are left alone. A running run's page (`#live`) listens to its event stream and, on each
 * `records` event, swaps in the page as the server renders it now; after the seal the stream is closed.
 */
export const KEYS_SCRIPT = `'use strict';
document.addEventListener('keydown', (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
  const target = event.target;
  if (target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== 'hidden')) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  const click = (selector) => {
    const element = document.querySelector(selector);
    if (element === null || element.disabled) return false;
    element.click();
    return true;
  };
  const select = document.querySelector('#label');
  let handled = false;
  const rows = [...document.querySelectorAll('[data-nav] [data-nav-row]')];
  if ((event.key === 'j' || event.key === 'k') && rows.length > 0) {
    const at = rows.findIndex((row) => row.classList.contains('current'));
    const next = at < 0 ? 0 : Math.max(0, Math.min(rows.length - 1, at + (event.key === 'j' ? 1 : -1)));
    for (const row of rows) { row.classList.remove('current'); row.removeAttribute('aria-current'); }
    rows[next].classList.add('current');
    rows[next].setAttribute('aria-current', 'true');
    rows[next].scrollIntoView({ block: 'nearest' });
    handled = true;
  } else if (event.key === 'Enter' && !(target instanceof HTMLAnchorElement || target instanceof HTMLButtonElement || target instanceof HTMLSelectElement)) {
    const row = document.querySelector('[data-nav] [data-nav-row].current[data-href]');
    if (row !== null) { location.assign(row.dataset.href); handled = true; }
  } else if (event.key === 'a') handled = click('button[data-key="a"]');
  else if (event.key === 'r') handled = click('button[data-key="r"]');
  else if (event.key === 'n') handled = click('[data-key="n"]');
  else if (event.key === 'e') handled = click('a[data-key="e"]');
  else if (event.key === 'q') handled = click('a[data-key="q"]');
  else if (event.key === 'c') {
    const comment = document.querySelector('#comment');
    if (comment !== null) { comment.focus(); handled = true; }
  } else if (/^[1-9]$/.test(event.key) && select !== null && !select.disabled) {
    const index = Number(event.key);
    if (index < select.options.length) { select.selectedIndex = index; select.dispatchEvent(new Event('change')); handled = true; }
  }
  if (handled) event.preventDefault();
});
const live = document.querySelector('#live[data-events]');
if (live !== null && typeof EventSource === 'function') {
  const source = new EventSource(live.dataset.events);
  let fetching = Promise.resolve();
  source.addEventListener('records', (event) => {
    if (JSON.parse(event.data).sealed === true) source.close();
    fetching = fetching.then(async () => {
      const response = await fetch(location.href, { credentials: 'same-origin' });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), 'text/html').querySelector('main');
      const main = document.querySelector('main');
      if (fresh !== null && main !== null) main.replaceChildren(...fresh.childNodes);
      document.dispatchEvent(new CustomEvent('redline:updated'));
    }).catch(() => undefined);
  });
}
`;
