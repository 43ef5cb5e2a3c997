// The stylesheet and scripts inlined into index.html: the report is one file
// that opens from a CI artifact or a file share with no network.
#include "html_parts.h"

namespace reports::internal {

const char* const kHtmlStyle = R"css(
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto;
       max-width: 1200px; padding: 16px 24px; color: #1f2328; }
h1 { font-size: 1.5em; margin: 0 0 8px; }
h2 { font-size: 1.2em; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1.05em; margin: 18px 0 6px; }
h4 { font-size: 0.95em; margin: 12px 0 4px; color: var(--muted); }
.verdict { padding: 12px 16px; border-radius: 6px; color: #fff; font-size: 1.15em; }
.verdict b { font-size: 1.3em; text-transform: uppercase; margin-right: 12px; }
.verdict-passed { background: var(--ok); }
.verdict-failed { background: var(--bad); }
.verdict-regressed { background: var(--warn); }
.verdict-aborted, .verdict-running, .verdict-partial { background: var(--bad); }
.meta { color: var(--muted); margin: 6px 0 0; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 0.93em; }
th, td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f6f8fa; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[data-dir="asc"]::after { content: " \25B2"; }
table.sortable th[data-dir="desc"]::after { content: " \25BC"; }
tr.upstream td { background: #fff8c5; font-weight: 600; }
.tag { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 0.85em; color: #fff; }
.s-passed { background: var(--ok); } .s-skipped { background: var(--muted); }
.s-failed, .s-error, .s-crashed, .s-timeout { background: var(--bad); }
.worse { color: var(--bad); font-weight: 600; } .better { color: var(--ok); font-weight: 600; }
.chg { color: var(--muted); font-size: 0.9em; }
.worse .chg, .better .chg { color: inherit; }
p.note { color: var(--muted); font-size: 0.85em; margin: 2px 0 10px; max-width: 1000px; }
input.filter { margin: 4px 0; padding: 4px 8px; width: 320px; max-width: 100%; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 12px; }
figure { margin: 0; border: 1px solid var(--line); border-radius: 6px; padding: 6px; }
figcaption { font-size: 0.9em; color: var(--muted); overflow-wrap: anywhere; }
svg.chart { width: 100%; height: auto; }
svg.chart .axis { stroke: #8c959f; stroke-width: 1; }
svg.chart .grid { stroke: #eaeef2; stroke-width: 1; }
svg.chart .line { fill: none; stroke: #0969da; stroke-width: 1.5; }
svg.chart .pt { fill: #0969da; }
svg.chart .cur { fill: var(--bad); stroke: #fff; stroke-width: 1; }
svg.chart .cp { stroke: var(--bad); stroke-width: 1.5; stroke-dasharray: 5 3; }
svg.chart .ver { stroke: #8250df; stroke-width: 1; stroke-dasharray: 2 3; }
svg.chart text { font-size: 10px; fill: #57606a; }
svg.chart text.ytitle, svg.chart text.xtitle { font-size: 11px; fill: #1f2328; }
svg.chart text.cpl, svg.chart text.curl { fill: var(--bad); font-weight: 600; }
svg.chart .fb, svg.chart .fc { stroke-width: 1; stroke-dasharray: 6 3; }
svg.chart .fb { stroke: #57606a; } svg.chart .fc { stroke: var(--bad); }
svg.chart text.fbl { fill: #57606a; } svg.chart text.fcl { fill: var(--bad); }
.legend span { margin-right: 14px; font-size: 0.85em; color: var(--muted); }
.msg { max-width: 420px; overflow-wrap: anywhere; color: var(--muted); }
pre.dtext { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: 6px 8px; border-radius: 4px; }
pre.dtext .lbl { color: var(--muted); } pre.dtext .prompt { color: var(--muted); }
mark.dv { background: #ffb3b3; outline: 1px solid var(--bad); } mark.hf { background: #ffe08a; }
span.nt { font-size: 0.75em; color: var(--muted); border: 1px solid var(--line); border-radius: 3px; padding: 0 3px; margin: 0 2px; }
p.seq { margin: 6px 0 2px; font-size: 0.9em; }
#js-errors { color: var(--bad); white-space: pre-wrap; }
footer { margin-top: 32px; color: var(--muted); font-size: 0.85em; border-top: 1px solid var(--line); padding-top: 6px; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  input.filter, #js-errors { display: none; }
  .verdict { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  figure, tr { break-inside: avoid; }
  .charts { grid-template-columns: 1fr 1fr; }
  tr[hidden] { display: table-row; }
}
)css";

const char* const kHtmlErrorTrap = R"js(
window.onerror = function (message, source, line) {
  var box = document.getElementById('js-errors');
  if (box) box.textContent += 'JavaScript error: ' + message + ' (line ' + line + ')\n';
  document.documentElement.setAttribute('data-js-errors', 'yes');
};
)js";

const char* const kHtmlScript = R"js(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('report-data').textContent);

  function cellKey(row, index) {
    var cell = row.cells[index];
    if (!cell) return '';
    var sort = cell.getAttribute('data-sort');
    if (sort !== null && sort !== '' && !isNaN(Number(sort))) return Number(sort);
    return cell.textContent.trim().toLowerCase();
  }

  function sortBy(table, th) {
    var index = Array.prototype.indexOf.call(th.parentNode.cells, th);
    var asc = th.getAttribute('data-dir') !== 'asc';
    Array.prototype.forEach.call(th.parentNode.cells, function (h) { h.removeAttribute('data-dir'); });
    th.setAttribute('data-dir', asc ? 'asc' : 'desc');
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index), y = cellKey(b, index);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th) {
      th.addEventListener('click', function () { sortBy(table, th); });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('input.filter'), function (input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    if (!table) return;
    input.addEventListener('input', function () {
      var q = input.value.trim().toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        row.hidden = q !== '' && row.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });

  // Each page says how many rows its main table must have: index.html the
  // regressions, stacks.html the stacks.
  function expectRows(selector, expected, what) {
    var shown = document.querySelectorAll(selector).length;
    if (shown !== expected) {
      throw new Error(what + ' table has ' + shown + ' rows, expected ' + expected);
    }
  }
  if (data.regressions !== undefined) {
    expectRows('#regressions tbody tr', data.regressions, 'regressions');
  }
  if (data.stacks !== undefined) expectRows('#stacks tbody tr', data.stacks, 'stacks');
  if (data.verdict !== undefined) document.body.setAttribute('data-verdict', data.verdict);
  document.body.setAttribute('data-report-ready', 'yes');
})();
)js";

}  // namespace reports::internal
