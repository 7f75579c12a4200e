"""What the pages must look like at any width (issue 51, item 10), checked in the browser on the page as drawn:

    problems = layout_problems(driver)      # [] when the page keeps every rule; else one sentence a broken rule

- the current folder or page link (`a[aria-current]`) is styled apart from its sibling links;
- no emoji stands for a thing (a 📎 has no glyph without an emoji font): an icon is text or an inline SVG with a label;
- an address (`.address`, `.from`, `#signed-in-as`, `.mailbox-link`, the headers' values) breaks only after a `.` or
  around its `@`, never inside a word, and a size (`.size`, `.usage`, `.hint` sizes) never wraps ("654 B" stays whole);
- buttons that wrap onto lines of their own keep a gap: no two visible buttons touch or overlap;
- no cell shows an empty label ("Priority:" with nothing after it);
- sizes use one binary unit system (B, KiB, MiB, GiB), never KB, MB or GB;
- (issue 68) a button whose action destroys, takes away or declines (Delete, Unlink, Remove, Revoke, Deny, Sign out)
  has the `danger` or `secondary` class; every notice (`.flash`) has its kind (`success`, `warning`, `error`); the
  page is no wider than the window; a UUID in a table is never broken; an address in a table takes at most two lines.

At a laptop's and a phone's size, with a screenshot of each (`<name>-1280.png`, `<name>-390.png` in `directory`):

    problems = at_both_sizes(driver, directory, "login")   # [] when both keep every rule; axe's blocking ones too
"""

import os
import re
import sys

# The two sizes every walked page is looked at (issue 68): a laptop's and a phone's, CSS pixels.
SIZES = ((1280, 900), (390, 844))

# Runs in the page: returns the broken rules, one sentence each.
_SCRIPT = r"""
const problems = [];
const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
const label = el => (el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).trim().split(/\s+/).join('.') : ''));

// The current link looks different from its siblings.
for (const current of document.querySelectorAll('a[aria-current]')) {
  const siblings = [...current.parentElement.querySelectorAll('a')].filter(a => a !== current && !a.hasAttribute('aria-current'));
  if (!siblings.length || !visible(current)) continue;
  const look = el => { const s = getComputedStyle(el);
    return [s.fontWeight, s.color, s.backgroundColor, s.textDecorationLine, s.borderBottomStyle, s.borderBottomWidth].join('|'); };
  if (siblings.some(a => look(a) === look(current)))
    problems.push('the current link ' + JSON.stringify(current.textContent.trim()) + ' looks like the others');
}

// No emoji as an icon.
const emoji = /\p{Extended_Pictographic}/u;
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
for (let node = walker.nextNode(); node; node = walker.nextNode()) {
  if (node.parentElement.closest('iframe, pre, .preview, .subject, #text-body')) continue;  // what the mail says
  if (emoji.test(node.textContent) && visible(node.parentElement))
    problems.push('an emoji stands for something in ' + label(node.parentElement) + ': ' + JSON.stringify(node.textContent.trim()));
}

// The lines a text node is drawn on: the offsets where a new line starts.
function breaks(node) {
  const found = []; const range = document.createRange(); let top = null;
  for (let i = 0; i < node.textContent.length; i++) {
    range.setStart(node, i); range.setEnd(node, i + 1);
    const rect = range.getBoundingClientRect();
    if (rect.width === 0 && rect.height === 0) continue;
    if (top !== null && rect.top > top + 2) found.push(i);
    top = rect.top;
  }
  return found;
}
function textNodes(el) { const out = []; const w = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) out.push(n); return out; }

// Addresses break after a dot or around the @ (or at a space between a name and its address), never mid-word.
for (const el of document.querySelectorAll('.address, .from, #signed-in-as, .mailbox-link, dl.headers dd')) {
  if (!visible(el)) continue;
  for (const node of textNodes(el)) {
    const text = node.textContent;
    for (const i of breaks(node)) {
      const before = text[i - 1], at = text[i];
      if (!(/[\s.@<]/.test(before) || /[\s@>]/.test(at)))
        problems.push('an address breaks mid-word in ' + label(el) + ': ' + JSON.stringify(text.slice(0, i) + ' / ' + text.slice(i)));
    }
  }
}

// Sizes stay on one line.
const sizePattern = /\d(?:[.,]\d+)?[\s\u00a0](?:B|KiB|MiB|GiB|TiB|KB|MB|GB)\b/g;
for (const el of document.querySelectorAll('.size, .usage, .hint, #sandbox, .account')) {
  if (!visible(el)) continue;
  for (const node of textNodes(el)) {
    const text = node.textContent; const starts = breaks(node);
    for (const m of text.matchAll(sizePattern)) {
      if (starts.some(i => i > m.index && i < m.index + m[0].length))
        problems.push('a size wraps in ' + label(el) + ': ' + JSON.stringify(m[0]));
    }
  }
}

// Buttons keep apart.
const buttons = [...document.querySelectorAll('button, input[type=submit]')].filter(visible).map(b => [b, b.getBoundingClientRect()]);
for (let i = 0; i < buttons.length; i++) for (let j = i + 1; j < buttons.length; j++) {
  const [a, ra] = buttons[i], [b, rb] = buttons[j];
  const gapX = Math.max(rb.left - ra.right, ra.left - rb.right), gapY = Math.max(rb.top - ra.bottom, ra.top - rb.bottom);
  if (gapX < 2 && gapY < 2)
    problems.push('buttons touch: ' + JSON.stringify(a.textContent.trim()) + ' and ' + JSON.stringify(b.textContent.trim()));
}

// A destructive or negative action is styled as one (issue 68), and every notice says its kind.
const negative = /^(delete|unlink|remove|revoke|deny|sign out)\b/i;
for (const b of document.querySelectorAll('button, input[type=submit]')) {
  const text = (b.textContent || b.value || '').trim();
  if (negative.test(text) && !b.classList.contains('danger') && !b.classList.contains('secondary'))
    problems.push('the ' + JSON.stringify(text) + ' button is styled as the main action (give it danger or secondary)');
}
for (const note of document.querySelectorAll('.flash')) {
  if (!['success', 'warning', 'error'].some(kind => note.classList.contains(kind)))
    problems.push('a notice without its kind: ' + label(note) + ' ' + JSON.stringify(note.textContent.trim().slice(0, 60)));
}

// The page fits its window: nothing pushes it wider (a table too wide scrolls inside its .table-wrap).
if (document.documentElement.scrollWidth > window.innerWidth + 1)
  problems.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth + ' px window');

// In a table, a UUID stays on one line and an address takes at most two.
const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
for (const cell of document.querySelectorAll('td')) {
  if (!visible(cell)) continue;
  for (const node of textNodes(cell)) {
    const starts = breaks(node);
    for (const m of node.textContent.matchAll(uuid))
      if (starts.some(i => i > m.index && i < m.index + m[0].length))
        problems.push('a UUID breaks in ' + label(cell.closest('tr') || cell) + ': ' + JSON.stringify(m[0]));
  }
}
for (const el of document.querySelectorAll('td.address, td.from, td .address')) {
  if (!visible(el)) continue;
  const range = document.createRange(); range.selectNodeContents(el);
  const tops = [...range.getClientRects()].filter(r => r.width > 0).map(r => r.top).sort((x, y) => x - y);
  const lines = tops.filter((top, i) => i === 0 || top > tops[i - 1] + 4).length;
  if (lines > 2) problems.push('an address takes ' + lines + ' lines in ' + label(el.closest('tr') || el));
}

// No empty labels: a labelled cell that shows its label shows something after it.
for (const cell of document.querySelectorAll('td[data-label]')) {
  if (!visible(cell)) continue;
  const before = getComputedStyle(cell, '::before').content;
  if (before && before !== 'none' && before !== 'normal' && !cell.textContent.trim() && !cell.querySelector('svg, img, input, button'))
    problems.push('an empty ' + JSON.stringify(cell.getAttribute('data-label')) + ' label in ' + label(cell.closest('tr') || cell));
}
return problems;
"""

_DECIMAL_UNITS = re.compile(r"\b\d+(?:[.,]\d+)?[ \u00a0](KB|MB|GB|TB)\b")


def layout_problems(driver):
    """The rules of this module the page in `driver` breaks at its current width, one sentence each."""
    problems = list(driver.execute_script(_SCRIPT))
    text = driver.execute_script("return document.body.innerText")
    for match in _DECIMAL_UNITS.finditer(text):
        problems.append("a size in decimal units: %r (sizes are binary: KiB, MiB, GiB)" % match.group(0))
    return problems


def at_both_sizes(driver, directory, name):
    """The current page at each of SIZES: a screenshot of its top (`<name>-<width>.png` in `directory`, its path
    printed on stderr), the page's layout problems and axe's serious and critical violations, each sentence prefixed by the width;
    the window is left at the first size."""
    from .accessibility import blocking_violations
    from .browser import set_viewport

    os.makedirs(directory, exist_ok=True)
    problems = []
    try:
        for width, height in SIZES:
            set_viewport(driver, width, height)
            driver.execute_script("window.scrollTo(0, 0)")  # the top: the page's heading and its notice
            path = os.path.join(directory, "%s-%d.png" % (name, width))
            if not driver.save_screenshot(path):
                problems.append("%d px: no screenshot" % width)
            print("screenshot:", os.path.abspath(path), file=sys.stderr)
            problems += ["%d px: %s" % (width, p) for p in layout_problems(driver) + blocking_violations(driver)]
    finally:
        set_viewport(driver, *SIZES[0])
    return problems
