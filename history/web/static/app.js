// The page of `recall serve`: search, read and forget. Plain modern JavaScript, no build step.
// Every text comes from the messages the server put in #page-data; every request goes to this
// service (its Content-Security-Policy allows nothing else). The URL holds what is shown.
"use strict";

const data = JSON.parse(document.getElementById("page-data").textContent);
const lang = data.language;
const TOKEN_KEY = "recall-token";
const PAGE_SIZE = 20;
const SEARCH_K = 10;
const DEBOUNCE_MS = 250;
const DAY_CHOICES = [7, 14, 30, 90, 365];
const FILES_SHOWN = 6;

const $ = (id) => document.getElementById(id);
const dateFormat = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
const relativeFormat = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });

let projects = [];
let retention = []; // the retention settings, as /api/code/projects gives them
let generation = 0;
let debounce = 0;
let opened = ""; // the card last opened: focused again when its list comes back
let restoreFocus = false;
const termsOf = new Map();

function t(key, params = {}) {
  return (data.messages[key] ?? key).replace(/\{(\w+)\}/g, (whole, name) =>
    name in params ? String(params[name]) : whole,
  );
}

function element(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

// ---- the service ----

class Refusal extends Error {}

function detailOf(body) {
  const detail = body && body.detail;
  if (Array.isArray(detail)) return detail.map((item) => item.msg).join("; ");
  return typeof detail === "string" ? detail : "";
}

async function api(path, method = "GET") {
  for (let asked = false; ; asked = true) {
    const headers = { Accept: "application/json" };
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    let response;
    try {
      response = await fetch(path, { method, headers });
    } catch {
      throw new Refusal(t("unreachable"));
    }
    if (response.status === 401) {
      await askForToken(Boolean(token) || asked);
      continue;
    }
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    if (response.ok || response.status === 404) return { status: response.status, body };
    throw new Refusal(t("error", { detail: detailOf(body) || response.status }));
  }
}

let tokenAsked = null;

function askForToken(wrong) {
  if (tokenAsked) return tokenAsked;
  const dialog = $("token-dialog");
  $("token-wrong").hidden = !wrong;
  $("token").value = "";
  tokenAsked = new Promise((resolve) => {
    const done = (event) => {
      event.preventDefault();
      const token = $("token").value.trim();
      if (!token) return;
      sessionStorage.setItem(TOKEN_KEY, token);
      $("token-form").removeEventListener("submit", done);
      dialog.close();
      tokenAsked = null;
      resolve();
    };
    $("token-form").addEventListener("submit", done);
  });
  dialog.showModal();
  $("token").focus();
  return tokenAsked;
}

function query(path, params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) search.set(name, value);
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

// ---- the URL is the state ----

function readUrl() {
  const params = new URLSearchParams(location.search);
  const get = (name) => params.get(name) || "";
  return {
    q: get("q"),
    project: get("project"),
    days: get("days"),
    words_only: get("words_only") === "1" ? "1" : "",
    open: get("open"),
    turn: get("turn"),
    kind: get("kind") === "files" ? "files" : "",
  };
}

function urlFor(state) {
  const lang = new URLSearchParams(location.search).get("lang");
  return query("/", { lang, ...state });
}

function go(state, replace = false) {
  history[replace ? "replaceState" : "pushState"]({ pushed: !replace }, "", urlFor(state));
  render();
}

// ---- what is shown of a turn ----

const fold = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function wordMatches(word, terms) {
  const folded = fold(word);
  return terms.some(
    (term) =>
      folded === term ||
      (term.length >= 3 && folded.startsWith(term)) ||
      (folded.length >= 4 && term.startsWith(folded)),
  );
}

function cjkSpans(word, terms) {
  const spans = [];
  for (const term of terms.filter((term) => CJK.test(term))) {
    for (let at = word.indexOf(term); at !== -1; at = word.indexOf(term, at + 1)) {
      spans.push([at, at + term.length]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  const merged = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}

// `text` with the words the search matched inside <mark>, built as nodes (never as HTML).
function withMarks(text, terms) {
  const fragment = document.createDocumentFragment();
  let done = 0;
  if (terms.length) {
    for (const found of text.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = found[0];
      const spans = wordMatches(word, terms) ? [[0, word.length]] : cjkSpans(word, terms);
      for (const [start, end] of spans) {
        fragment.append(text.slice(done, found.index + start));
        fragment.append(element("mark", "", text.slice(found.index + start, found.index + end)));
        done = found.index + end;
      }
    }
  }
  fragment.append(text.slice(done));
  return fragment;
}

function dayNumber(date) {
  return Math.floor(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()) / 86_400_000);
}

function when(iso) {
  const date = new Date(iso);
  const age = Math.max(0, dayNumber(new Date()) - dayNumber(date));
  const node = element("time", "", `${dateFormat.format(date)} (${relativeFormat.format(-age, "day")})`);
  node.dateTime = iso;
  return node;
}

function relativeTo(project, path) {
  const prefix = project.replace(/\/+$/, "") + "/";
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

// `linkOf(path)`: a node standing for the path (a link), or null for the path as text.
function fileLine(label, className, paths, linkOf = null) {
  if (!paths.length) return null;
  const shown = [];
  for (const path of paths.slice(0, FILES_SHOWN)) {
    if (shown.length) shown.push(", ");
    shown.push(linkOf ? linkOf(path) : path);
  }
  const more = paths.length > FILES_SHOWN ? ` ${t("more_files", { count: paths.length - FILES_SHOWN })}` : "";
  return element("p", `files ${className}`, element("b", "", label), ...shown, more);
}

// A file's blame: the file search for `path` (relative to `project`, as the turn recorded it).
function blameLink(path, project) {
  const state = { q: path, project, days: "", open: "", turn: "", kind: "files" };
  const link = element("a", "blame", path);
  link.href = urlFor(state);
  link.title = t("blame_title", { path });
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    go(state);
  });
  return link;
}

// Edited and read files told apart: a file edited is not listed again as read. With `linked`
// (a turn shown whole), each edited file links to its blame.
function filesOf(turn, linked = false) {
  const edited = [...new Set(turn.edited.map((path) => relativeTo(turn.project, path)))];
  const read = [...new Set(turn.files.map((path) => relativeTo(turn.project, path)))].filter(
    (path) => !edited.includes(path),
  );
  const linkOf = linked ? (path) => blameLink(path, turn.project) : null;
  return [fileLine(t("edited"), "edited", edited, linkOf), fileLine(t("read"), "read", read)];
}

// "Turn: {id}" with the whole id in an element of its own, selected whole by one click.
function turnId(id) {
  const [before, after = ""] = t("turn_id").split("{id}");
  return element("span", "turn-id", before, element("code", "", id), after);
}

function taintLine(turn) {
  return turn.tainted ? element("p", "taint", `⚠ ${t("tainted")}`) : null;
}

function excerpt(label, text, terms, className) {
  return element("p", `excerpt ${className}`, element("b", "", label), withMarks(text, terms));
}

function clip(text, width) {
  const flat = text.split(/\s+/).join(" ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

// ---- the list: search results, or recent conversations ----

function openLink(state, ...children) {
  const link = element("a", "open", ...children);
  link.href = urlFor(state);
  link.addEventListener("click", (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    opened = state.turn ? `[data-turn="${CSS.escape(state.turn)}"]` : `[data-session="${CSS.escape(state.open)}"]`;
    go(state);
  });
  return link;
}

// A turn's card (a search hit, a file's turn): its date, project, ids and taint, then `details`,
// all one link that opens the turn in its conversation.
function turnCard(turn, state, className, ...details) {
  const meta = element(
    "p",
    "meta",
    when(turn.asked_at),
    state.project ? null : element("span", "project", t("project", { project: turn.project })),
    element("span", "conversation-id", t("conversation", { id: turn.session_id })),
    turnId(turn.turn_id),
  );
  const opens = { ...state, open: turn.session_id, turn: turn.turn_id };
  const link = openLink(opens, meta, taintLine(turn), ...details);
  const card = element("li", `card ${className}`, link);
  card.dataset.turn = turn.turn_id;
  return card;
}

// `byMeaning`: search by meaning brought it, not the words' best matches (it may hold none).
function hitCard(hit, state, terms, byMeaning = false) {
  return turnCard(
    hit,
    state,
    "hit-card",
    byMeaning ? element("p", "by-meaning", t("by_meaning")) : null,
    excerpt(t("asked"), hit.asked_excerpt, terms, "asked"),
    excerpt(t("answered"), hit.answered_excerpt, terms, "answered"),
    ...filesOf(hit),
  );
}

function conversationCard(summary, state) {
  const meta = element(
    "p",
    "meta",
    when(summary.last_asked_at),
    state.project ? null : element("span", "project", t("project", { project: summary.project })),
    element("span", "", t("turn_count", { count: summary.turns })),
    summary.tainted_turns
      ? element("span", "taint", t("tainted_turns", { count: summary.tainted_turns }))
      : null,
  );
  const link = openLink(
    { ...state, open: summary.session_id, turn: "" },
    meta,
    element("p", "excerpt asked", element("b", "", t("asked")), clip(summary.first_asked, 300)),
    fileLine(t("edited"), "edited", summary.edited.map((path) => relativeTo(summary.project, path))),
  );
  const card = element("li", "card conversation-card", link);
  card.dataset.session = summary.session_id;
  return card;
}

function showNothing(text, action = null) {
  const nothing = $("nothing");
  nothing.replaceChildren(text);
  if (action) {
    const button = element("button", "", action.label);
    button.type = "button";
    button.addEventListener("click", () => go(action.state, true));
    nothing.append(button);
  }
  nothing.hidden = false;
}

async function loadProjects() {
  const { body } = await api("/api/code/projects");
  projects = (body && body.projects) || [];
  retention = (body && body.retention) || [];
  const select = $("project");
  const chosen = readUrl().project;
  const choices = [["", t("every_project")], ...projects.map((item) => [item.project, item.project])];
  if (chosen && !projects.some((item) => item.project === chosen)) choices.push([chosen, chosen]);
  select.replaceChildren(
    ...choices.map(([value, label]) => {
      const option = element("option", "", label);
      option.value = value;
      return option;
    }),
  );
  select.value = chosen;
}

// How long the turns of the project in view (or of every project) are kept: its own setting,
// else the one for every project; nothing when they are kept until forgotten.
function showRetention(project) {
  const own = retention.find((setting) => setting.project === project);
  const every = retention.find((setting) => setting.project === null);
  const setting = (project && own) || every;
  $("retention").textContent = setting ? t("kept_days", { days: setting.days }) : "";
  $("retention").hidden = !setting;
}

function turnsIn(project) {
  if (!project) return projects.reduce((sum, item) => sum + item.turns, 0);
  const found = projects.find((item) => item.project === project);
  return found ? found.turns : 0;
}

async function search(state, mine) {
  $("list-heading").textContent = t("results_heading");
  const { body } = await api(
    query("/api/code/history", {
      q: state.q,
      project: state.project,
      days: state.days,
      words_only: state.words_only,
      k: SEARCH_K,
    }),
  );
  if (mine !== generation) return;
  termsOf.set(state.q, body.terms);
  if (!body.terms.length) return showNothing(t("no_words"));
  if (!body.hits.length) {
    await loadProjects();
    if (mine !== generation) return;
    const where = state.project ? t("in_project", { project: state.project }) : t("in_any_project");
    if (!turnsIn(state.project)) return showNothing(t("nothing_recorded", { where }));
    if (state.days) {
      return showNothing(t("no_match_in_days", { where, days: state.days, query: clip(state.q, 60) }), {
        label: t("search_all_time"),
        state: { ...state, days: "" },
      });
    }
    const everywhere = state.project
      ? { label: t("search_everywhere"), state: { ...state, project: "" } }
      : null;
    return showNothing(t("no_match", { where, query: clip(state.q, 60) }), everywhere);
  }
  const byMeaning = new Set(body.by_meaning || []);
  $("results").replaceChildren(
    ...body.hits.map((hit) => hitCard(hit, state, body.terms, byMeaning.has(hit.turn_id))),
  );
}

async function browse(state, mine, before = "") {
  $("list-heading").textContent = t("recent_heading");
  const { body } = await api(
    query("/api/code/sessions", { project: state.project, days: state.days, limit: PAGE_SIZE, before }),
  );
  if (mine !== generation) return;
  const cards = body.sessions.map((summary) => conversationCard(summary, state));
  if (before) $("results").append(...cards);
  else $("results").replaceChildren(...cards);
  if (!before && !cards.length) showNothing(t("no_conversations"));
  const more = $("more");
  more.hidden = !body.next;
  more.onclick = () => {
    more.hidden = true;
    const shown = $("results").children.length;
    browse(state, generation, body.next)
      .then(() => resultLinks()[shown]?.focus())
      .catch((error) => showNothing(error.message));
  };
}

// ---- a file: the turns that edited it, or the turn that wrote each of its lines ----

const LINES = /^(.+):([1-9][0-9]{0,8}(?:-[1-9][0-9]{0,8})?)$/;

function fileQuery(text) {
  const found = text.trim().match(LINES);
  return found ? { path: found[1], line: found[2] } : { path: text.trim(), line: "" };
}

function fileTurnCard(turn, state, className, ...details) {
  const asked = element("p", "excerpt asked", element("b", "", t("asked")), clip(turn.asked, 300));
  return turnCard(turn, state, className, asked, ...details);
}

function addedLines(turn) {
  if (!turn.edited) return [element("p", "only-read", t("only_read"))];
  const removed = turn.removed || [];
  if (!turn.added.length && !removed.length) return [];
  const shown = [...removed.map((line) => `- ${line}`), ...turn.added.map((line) => `+ ${line}`)];
  return [element("b", "", t(removed.length ? "changed" : "added")), element("pre", "added", shown.join("\n"))];
}

function lineCard(line, state) {
  const head = element(
    "p",
    "line-head",
    element("b", "", t("line_number", { line: line.line })),
    " ",
    element("code", "line-text", line.text),
  );
  if (!line.turn) {
    const item = element("li", "card line-card unwritten", head, element("p", "nothing-wrote", t("no_turn_wrote")));
    item.dataset.line = line.line;
    return item;
  }
  const how = line.how.map((reason) => t(`how_${reason}`)).join(", ");
  const card = fileTurnCard(
    line.turn,
    state,
    "line-card",
    element("p", "how", t("how_sure", { how })),
    line.commit ? element("p", "commit", t("commit", { commit: line.commit.slice(0, 12) })) : null,
  );
  card.firstChild.prepend(head);
  card.dataset.line = line.line;
  return card;
}

async function fileSearch(state, mine) {
  const { path, line } = fileQuery(state.q);
  $("list-heading").textContent = line ? t("lines_heading", { lines: line, path }) : t("file_heading", { path });
  const { status, body } = await api(
    query("/api/code/files", { path, line, project: state.project, k: SEARCH_K }),
  );
  if (mine !== generation) return;
  if (status === 404) return showNothing(t("error", { detail: detailOf(body) || status }));
  if (line) {
    $("results").replaceChildren(...body.lines.map((found) => lineCard(found, state)));
    return;
  }
  if (!body.turns.length) return showNothing(t("no_file_turns", { path }));
  $("results").replaceChildren(
    ...body.turns.map((turn) => fileTurnCard(turn, state, "file-card", ...addedLines(turn))),
  );
}

// ---- one conversation ----

async function termsFor(q) {
  if (!q.trim()) return [];
  if (!termsOf.has(q)) {
    const { body } = await api(query("/api/code/history", { q, k: 1 }));
    termsOf.set(q, (body && body.terms) || []);
  }
  return termsOf.get(q);
}

function workOf(turn, terms) {
  const work = renderWork(turn.work, terms, (path) => relativeTo(turn.project, path));
  return work ? [element("b", "", t("work")), work] : [];
}

function turnItem(turn, terms, isHit) {
  const item = element(
    "li",
    isHit ? "turn hit" : "turn",
    element(
      "p",
      "meta",
      when(turn.asked_at),
      isHit ? element("strong", "found", t("found_turn")) : null,
      turnId(turn.turn_id),
    ),
    taintLine(turn),
    element("b", "", t("asked")),
    element("pre", "asked", withMarks(turn.asked, terms)),
    element("b", "", t("answered")),
    renderAnswer(turn.answered, terms),
    ...workOf(turn, terms),
    ...filesOf(turn, true),
  );
  item.dataset.turn = turn.turn_id;
  item.tabIndex = -1;
  if (isHit) item.setAttribute("aria-current", "true");
  return item;
}

async function showConversation(state, mine) {
  const [{ status, body }, terms] = await Promise.all([
    api(`/api/code/sessions/${encodeURIComponent(state.open)}`),
    state.kind ? [] : termsFor(state.q),
  ]);
  if (mine !== generation) return;
  if (status === 404) {
    setStatus(t("conversation_gone"));
    return go({ ...state, open: "", turn: "" }, true);
  }
  $("list-view").hidden = true;
  $("conversation-view").hidden = false;
  const first = body.turns[0];
  $("conversation-heading").textContent = t("conversation_heading", { id: state.open });
  $("conversation-project").textContent = t("project", { project: first.project });
  $("turns").replaceChildren(...body.turns.map((turn) => turnItem(turn, terms, turn.turn_id === state.turn)));
  $("forget-conversation").onclick = () => forgetConversation(state, body.turns);
  const hit = $("turns").querySelector(".turn.hit");
  if (hit) {
    hit.scrollIntoView({ block: "center" });
    hit.focus({ preventScroll: true });
  } else {
    $("conversation-heading").focus();
  }
}

// ---- forgetting ----

function confirmed(text) {
  const dialog = $("confirm");
  $("confirm-text").textContent = text;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    dialog.showModal();
    $("confirm-no").focus();
  });
}

function setStatus(text) {
  $("status").textContent = text;
}

async function forgetConversation(state, turns) {
  const title = clip(turns[0].asked, 60);
  const project = turns[0].project;
  if (!(await confirmed(t("confirm_conversation", { title, turns: turns.length, project })))) {
    return;
  }
  const { status, body } = await api(`/api/code/sessions/${encodeURIComponent(state.open)}`, "DELETE");
  setStatus(status === 404 ? t("already_gone") : t("gone_conversation", { title, turns: body.forgotten }));
  await loadProjects();
  termsOf.clear();
  leaveConversation(state);
}

async function forgetProject() {
  const project = readUrl().project;
  const summary = projects.find((item) => item.project === project);
  const counts = { project, conversations: summary ? summary.conversations : 0, turns: summary ? summary.turns : 0 };
  if (!(await confirmed(t("confirm_project", counts)))) return;
  const { status, body } = await api(query("/api/code/projects", { project }), "DELETE");
  setStatus(
    status === 404
      ? t("already_gone")
      : t("gone_project", { project, conversations: body.deleted, turns: body.forgotten }),
  );
  history.replaceState(history.state, "", urlFor({ ...readUrl(), project: "", open: "", turn: "" }));
  await loadProjects();
  render();
}

function focusOpened() {
  if (restoreFocus && opened) $("results").querySelector(`${opened} a.open`)?.focus();
  restoreFocus = false;
}

function leaveConversation(state) {
  restoreFocus = true;
  if (history.state && history.state.pushed) history.back();
  else go({ ...state, open: "", turn: "" }, true);
}

// ---- rendering what the URL says ----

async function render() {
  const mine = ++generation;
  const state = readUrl();
  if (document.activeElement !== $("q") || restoreFocus) $("q").value = state.q; // not while typing
  setDays(state.days);
  $("words-only").checked = state.words_only === "1";
  setKind(state.kind);
  $("forget-project").hidden = !state.project;
  $("nothing").hidden = true;
  $("more").hidden = true;
  try {
    if (!projects.length || ![...$("project").options].some((option) => option.value === state.project)) {
      await loadProjects();
      if (mine !== generation) return; // a newer view (a project chosen since) owns the form
    }
    $("project").value = state.project;
    showRetention(state.project);
    if (state.open) return await showConversation(state, mine);
    $("conversation-view").hidden = true;
    $("list-view").hidden = false;
    $("results").replaceChildren();
    if (state.kind && state.q.trim()) await fileSearch(state, mine);
    else if (state.q.trim()) await search(state, mine);
    else await browse(state, mine);
    if (mine === generation) focusOpened();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    if (mine === generation) showNothing(error.message);
  }
}

function setDays(days) {
  const select = $("days");
  const choices = ["", ...DAY_CHOICES.map(String)];
  if (days && !choices.includes(days)) choices.push(days);
  if (select.options.length !== choices.length) {
    select.replaceChildren(
      ...choices.map((value) => {
        const option = element("option", "", value ? t("last_days", { days: value }) : t("any_time"));
        option.value = value;
        return option;
      }),
    );
  }
  select.value = days;
}

function setKind(kind) {
  $(kind ? "kind-files" : "kind-turns").checked = true;
  $("q-label").textContent = t(kind ? "file_label" : "search_label");
  $("q").placeholder = t(kind ? "file_placeholder" : "search_placeholder");
}

function formState() {
  const kind = $("kind-files").checked ? "files" : "";
  const words_only = $("words-only").checked ? "1" : "";
  return { ...readUrl(), q: $("q").value, project: $("project").value, days: $("days").value, words_only, open: "", turn: "", kind };
}

// ---- keys: "/" to search, arrows and Enter through results, Esc back ----

function resultLinks() {
  return [...$("results").querySelectorAll("a.open")];
}

function onKey(event) {
  if (document.querySelector("dialog[open]")) return;
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement;
  if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
    event.preventDefault();
    $("q").focus();
    $("q").select();
    return;
  }
  if (event.key === "Escape") {
    const state = readUrl();
    if (state.open) {
      event.preventDefault();
      leaveConversation(state);
    } else if (resultLinks().includes(target)) {
      event.preventDefault();
      $("q").focus();
    }
    return;
  }
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  const links = resultLinks();
  const at = target === $("q") ? -1 : links.indexOf(target);
  if (at === -1 && target !== $("q")) return;
  event.preventDefault();
  const next = at + (event.key === "ArrowDown" ? 1 : -1);
  if (next < 0) $("q").focus();
  else if (links[Math.min(next, links.length - 1)]) links[Math.min(next, links.length - 1)].focus();
}

function start() {
  document.title = t("title");
  $("heading").textContent = t("heading");
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = t(node.dataset.text);
  $("kinds").setAttribute("aria-label", t("kind_label"));
  setKind(readUrl().kind);
  const picker = $("language");
  for (const [code, name] of Object.entries(data.languages)) {
    const option = element("option", "", name);
    option.value = code;
    picker.append(option);
  }
  picker.value = lang;
  const everywhere = element("option", "", t("every_project"));
  everywhere.value = "";
  $("project").append(everywhere); // until the projects come (after the token, if one is asked)
  picker.addEventListener("change", () => {
    const params = new URLSearchParams(location.search);
    params.set("lang", picker.value);
    location.assign(`/?${params}`);
  });
  $("search").addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(debounce);
    go(formState(), true);
  });
  $("q").addEventListener("input", () => {
    clearTimeout(debounce);
    setStatus("");
    debounce = setTimeout(() => go(formState(), true), DEBOUNCE_MS);
  });
  $("project").addEventListener("change", () => go(formState(), true));
  for (const id of ["kind-turns", "kind-files"]) $(id).addEventListener("change", () => go(formState(), true));
  $("days").addEventListener("change", () => go(formState(), true));
  $("words-only").addEventListener("change", () => go(formState(), true));
  $("forget-project").addEventListener("click", forgetProject);
  $("back").addEventListener("click", () => leaveConversation(readUrl()));
  $("token-dialog").addEventListener("cancel", (event) => event.preventDefault());
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", () => {
    restoreFocus = true;
    render();
  });
  render();
  if (!readUrl().open) $("q").focus();
}

start();
