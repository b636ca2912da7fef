// An answer as the agent wrote it, and a turn's work, as nodes for the page (app.js).
// Markdown goes through the vendored `marked` (raw HTML escaped, images written as links), then
// the vendored DOMPurify (only the elements below, only http(s) and mailto links), then here:
// edits become diffs, links open apart, and the search's words are marked in text nodes.
// Uses app.js's `element`, `withMarks` and `t` (loaded after this file, called only later).
"use strict";

const MARKDOWN_CHARS = 100_000; // past this (1.5x a stored answer) an answer is shown as text
// A line opening more than 8 lists or quotes at once costs marked time that grows with the
// square of the depth (90,000 "- " took 45 s): such an answer is shown as text too.
const TOO_DEEP = /^(?:[ \t]*(?:>|(?:[*+-]|\d{1,9}[.)])(?=[ \t]|$))){9}/m;
// More elements than this take the sanitizer and the layout seconds each: shown as text.
const MAX_TAGS = 20_000;
const ALLOWED_TAGS = [
  "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "li",
  "ol", "p", "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul",
];
const ALLOWED_ATTR = ["href", "title", "class", "start", "align"];
const SAFE_LINK = /^(?:https?:|mailto:)/i;
const SEARCH = "<<<<<<< SEARCH", DIVIDER = "=======", REPLACE = ">>>>>>> REPLACE";
const FENCE = /^\s*(`{3,}|~{3,})/;
const UNIFIED = /^--- .*\n\+\+\+ .*\n@@/m;

const escapeHtml = (text) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

const markdown = new marked.Marked();
markdown.use({
  gfm: true,
  async: false,
  renderer: {
    html: ({ text }) => escapeHtml(text),
    image: ({ href, text }) => `<a href="${escapeHtml(href || "")}">${escapeHtml(text || href || "")}</a>`,
  },
});

// The end (exclusive) of an edit starting at lines[at] outside a fence, or `at` when none does.
function editEnd(lines, at) {
  if (lines[at].trim() === SEARCH) {
    for (let end = at + 1; end < lines.length; end++) {
      if (lines[end].trim().startsWith(REPLACE)) return end + 1;
    }
    return at;
  }
  const header = /^(diff --git |--- \S)/.test(lines[at]);
  if (!header || !lines.slice(at, at + 5).some((line) => line.startsWith("+++ "))) return at;
  let end = at + 1;
  while (end < lines.length && /^(?:[ +\-\\@]|diff |index |new file|deleted file)/.test(lines[end])) end++;
  return end;
}

// Unfenced SEARCH/REPLACE blocks and unified diffs put inside fences, so that Markdown leaves
// their lines alone (`=======` would be a heading) and they can be shown as diffs.
function fenceEdits(text) {
  const lines = text.split("\n");
  const out = [];
  let fence = "";
  for (let at = 0; at < lines.length; at++) {
    const line = lines[at];
    const opener = FENCE.exec(line);
    if (fence) {
      if (opener && opener[1][0] === fence[0] && opener[1].length >= fence.length) fence = "";
      out.push(line);
    } else if (opener) {
      fence = opener[1];
      out.push(line);
    } else {
      const end = editEnd(lines, at);
      if (end === at) {
        out.push(line);
        continue;
      }
      const block = lines.slice(at, end);
      const longest = Math.max(0, ...block.map((item) => (/^\s*(`+)/.exec(item) || ["", ""])[1].length));
      const ticks = "`".repeat(Math.max(3, longest + 1));
      out.push(ticks + (block[0].trim() === SEARCH ? "" : "diff"), ...block, ticks);
      at = end - 1;
    }
  }
  return out.join("\n");
}

function diffLine(kind, text) {
  return element("span", `line ${kind}`, text);
}

// The lines of a code block as a diff, or null when it is not one.
function diffLines(text, language) {
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines.some((line) => line.trim() === SEARCH)) {
    let side = "context";
    const shown = [];
    for (const line of lines) {
      const marker = line.trim();
      if (marker === SEARCH) side = "removed";
      else if (marker === DIVIDER && side === "removed") side = "added";
      else if (marker.startsWith(REPLACE)) {
        side = "context";
        shown.push(diffLine("hunk", "⋯"));
      } else if (side === "removed") shown.push(diffLine("removed", `- ${line}`));
      else if (side === "added") shown.push(diffLine("added", `+ ${line}`));
      else shown.push(diffLine("context", line));
    }
    if (shown.length && shown[shown.length - 1].classList.contains("hunk")) shown.pop();
    return shown;
  }
  if (!["diff", "patch"].includes(language) && !UNIFIED.test(text)) return null;
  return lines.map((line) => {
    if (/^(\+\+\+|---) /.test(line) || /^(diff|index) /.test(line)) return diffLine("file", line);
    if (line.startsWith("@@")) return diffLine("hunk", line);
    if (line.startsWith("+")) return diffLine("added", line);
    if (line.startsWith("-")) return diffLine("removed", line);
    return diffLine("context", line);
  });
}

function showAsDiff(code) {
  const language = (/\blanguage-(\S+)/.exec(code.className) || ["", ""])[1].toLowerCase();
  const lines = diffLines(code.textContent, language);
  if (!lines) return;
  code.replaceChildren(...lines);
  code.parentElement.classList.add("diff");
}

// Each text node under `root` with the search's words inside <mark> (the HTML is never edited).
function markTextNodes(root, terms) {
  if (!terms.length) return;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node);
  for (const node of texts) {
    const fragment = withMarks(node.data, terms);
    if (fragment.querySelector("mark")) node.replaceWith(fragment);
  }
}

function sanitized(text) {
  if (text.length > MARKDOWN_CHARS || TOO_DEEP.test(text)) return null;
  try {
    const html = markdown.parse(fenceEdits(text));
    let tags = 0; // raw "<" never reaches the HTML (text is escaped): each one opens a tag
    for (let at = html.indexOf("<"); at !== -1 && tags <= MAX_TAGS; at = html.indexOf("<", at + 1)) tags++;
    if (tags > MAX_TAGS) return null;
    return DOMPurify.sanitize(html, {
      ALLOWED_TAGS,
      ALLOWED_ATTR,
      ALLOWED_URI_REGEXP: SAFE_LINK,
      RETURN_DOM_FRAGMENT: true,
    });
  } catch {
    return null; // too deep for the parser: shown as text
  }
}

function renderAnswer(text, terms) {
  const fragment = sanitized(text);
  if (!fragment) return element("div", "answered plain", withMarks(text, terms));
  for (const link of fragment.querySelectorAll("a[href]")) {
    link.rel = "noopener noreferrer nofollow";
    link.target = "_blank";
  }
  for (const code of fragment.querySelectorAll("pre > code")) showAsDiff(code);
  for (const table of fragment.querySelectorAll("table")) {
    const wide = element("div", "wide");
    table.replaceWith(wide);
    wide.append(table);
  }
  markTextNodes(fragment, terms);
  return element("div", "answered markdown", fragment);
}

// A turn's work (history/importers/whole.py): `$ command`, `! failure line`, `~ path` then its
// `- removed line`s and `+ added line`s; any other line is a note (what was left out).
function renderWork(work, terms, pathShown) {
  if (!work || !work.trim()) return null;
  const list = element("ol", "work");
  let added = null;
  let failure = null;
  for (const line of work.split("\n")) {
    if (added && line.startsWith("+ ")) {
      added.append(diffLine("added", withMarks(line, terms)));
      continue;
    }
    if (added && line.startsWith("- ")) {
      added.append(diffLine("removed", withMarks(line, terms)));
      continue;
    }
    if (failure && line.startsWith("! ")) {
      failure.append("\n", withMarks(line.slice(2), terms));
      continue;
    }
    added = failure = null;
    if (line.startsWith("$ ")) {
      list.append(element("li", "command", element("pre", "", element("code", "", withMarks(line, terms)))));
    } else if (line.startsWith("! ")) {
      failure = element("pre", "", withMarks(line.slice(2), terms));
      list.append(element("li", "failure", element("b", "", t("failed")), failure));
    } else if (line.startsWith("~ ")) {
      added = element("code", "");
      const file = element("p", "edit-file", element("code", "", withMarks(pathShown(line.slice(2)), terms)));
      list.append(element("li", "edit", file, element("pre", "diff", added)));
    } else if (line.trim()) {
      list.append(element("li", "note", withMarks(line, terms)));
    }
  }
  return list;
}
