"""`recall_history`: the agent's way into its own earlier turns, as one function-calling tool.

`run` takes Python values, `call` takes the raw JSON arguments a model sent; both answer with
text for the model, and a bad argument is one `error: ...` line saying how to fix the call.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from history.i18n import N_
from history.limits import MAX_DAYS, MAX_K
from history.query import MAX_QUERY_WORDS, dropped_words, terms
from history.tools.arguments import BadArgument, shown, whole
from history.tools.spec import IndexTool, read_only_annotations
from history.tools.text import hit_block, quoted

if TYPE_CHECKING:
    from history.domain import SearchResults

log = logging.getLogger(__name__)

NAME = "recall_history"
MAX_FETCH = 160  # turns read to find k that did not themselves quote recall_history
OUTPUT_LIMIT = 4_000  # characters, whatever k is and however long the stored turns are
DAYS_HINT = N_("a positive whole number of days (e.g. 14), or left out to search all history")
APPROXIMATE = N_(
    "Cut short: every word of the query is very common in this history, so these are the best "
    "of the newest matching turns, maybe not of all; add a rarer word (a function, file or "
    "error name) to search all of them."
)

PARTIAL = N_(
    "Partial: a forget is rewriting where some turns are kept, so they were not searched; the "
    "same search in a minute reads them all."
)

DESCRIPTION = N_(
    "Search the history of earlier coding turns in this project: what the user asked, what was "
    "answered, which files were read and edited. It covers turns that have been trimmed out of "
    "this conversation's context and turns of earlier conversations. Use it when the user refers "
    "to past work ('what did we decide about the login function two weeks ago?', 'the bug we "
    "fixed last week') or before redoing something that may have been settled already. It is not "
    "a memory store of saved facts: it returns dated excerpts of past turns, best match first, "
    "with their turn and conversation ids. Search first, then open only the turn you need: "
    "recall_turn, where offered, reads a turn in full. "
    "Search with distinctive words (function, file, error or topic names). Any word may match, "
    "in any of its forms ('migrate' finds 'migration'), and a turn matching more of them ranks "
    "higher, so add other names for the same thing (a synonym, the file, the function, the "
    "error message): more words widen the search and rank it better. Common words are ignored; "
    "Chinese, Japanese and Korean text is searched too. Read-only."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "description": N_(
                "Words to look for, e.g. 'login function' or 'auth.py token refresh'."
            ),
        },
        "days": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_DAYS,
            "description": N_(
                "Only turns asked in the last N days. Leave out to search all history."
            ),
        },
        "k": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_K,
            "default": 5,
            "description": N_("How many turns to return, best first (1 to 10)."),
        },
        "everywhere": {
            "type": "boolean",
            "default": False,
            "description": N_("Search the turns of every project, not only this one."),
        },
        "words_only": {
            "type": "boolean",
            "description": N_(
                "Rank by the words alone, without search by meaning (where it is installed)."
            ),
        },
    },
    "required": ["query"],
    "additionalProperties": False,
}


MCP_ANNOTATIONS = read_only_annotations(N_("Recall history"))


class RecallHistoryTool(IndexTool):
    name = NAME
    description = DESCRIPTION
    parameters = PARAMETERS
    annotations = MCP_ANNOTATIONS
    example = '{"query": "login function"}'
    missing = N_("pass the words to look for, e.g. {example}.")

    def run(
        self,
        query: str,
        days: int | None = None,
        k: int = 5,
        everywhere: bool = False,
        words_only: bool | None = None,
    ) -> str:
        try:
            return self._answer(query, days, k, everywhere, words_only)
        except BadArgument as bad:
            return f"error: {bad}"
        except Exception as exc:  # a model gets one line, never a traceback
            log.exception("recall_history failed")
            _ = self._
            return "error: " + _(
                "the history could not be searched ({error}); go on.", error=type(exc).__name__
            )

    def _answer(
        self,
        query: object,
        days: object,
        k: object,
        everywhere: object,
        words_only: object = None,
    ) -> str:
        """`words_only` None: the index's default (the CLI sets that from its own switches)."""
        _ = self._
        if not isinstance(query, str) or not query.strip():
            raise BadArgument(
                _('query must be words to look for, e.g. "login"; got {value}.', value=shown(query))
            )
        if not (words := terms(query)):
            raise BadArgument(
                _(
                    "query {value} has no word to search for (common words like 'the' are "
                    "ignored); add a distinctive one: a function, file, error or topic name.",
                    value=shown(query),
                )
            )
        if days is not None:
            days = whole("days", days, 1, MAX_DAYS, _(DAYS_HINT), _)
        hint = _(
            "a whole number from {low} to {high} (default {default})", low=1, high=MAX_K, default=5
        )
        k = whole("k", k, 1, MAX_K, hint, _)
        if not isinstance(everywhere, bool):
            raise BadArgument(
                _("everywhere must be true or false; got {value}.", value=shown(everywhere))
            )
        if words_only is not None and not isinstance(words_only, bool):
            raise BadArgument(
                _("words_only must be true or false; got {value}.", value=shown(words_only))
            )
        meaning = None if words_only is None else not words_only
        found = self._search(query, None if everywhere else self.project, days, k, meaning)
        hits = sorted(found, key=lambda hit: NAME in hit.tools)[:k]  # stable: rank kept
        kept = self._kept(query, words)
        if not hits:
            return self._nothing(quoted(query), days, everywhere) + kept
        header = self._header(len(hits), quoted(query), days, everywhere, len(found) > k, k)
        header += kept
        if found.approximate:
            header += " " + self._(APPROXIMATE)
        if found.partial:
            header += " " + self._(PARTIAL)
        if by_meaning := sum(hit.turn_id in found.by_meaning for hit in hits):
            header += " " + self._.ngettext(
                "{count} of them was found by meaning, not among the best matches of the words.",
                "{count} of them were found by meaning, not among the best matches of the words.",
                by_meaning,
                count=by_meaning,
            )
        budget = (OUTPUT_LIMIT - len(header)) // len(hits) - 2
        now = datetime.now().astimezone()
        blocks = []
        for i, hit in enumerate(hits, 1):
            quoting, foreign = NAME in hit.tools, everywhere and hit.project != self.project
            blocks.append(
                hit_block(i, hit, words, budget, now, quoting=quoting, foreign=foreign, _=self._)
            )
        return "\n\n".join([header, *blocks])

    def _kept(self, query: str, words: list[str]) -> str:
        """A sentence naming the words searched when the query had more than the search takes
        (empty otherwise), to follow the header."""
        dropped = dropped_words(query) if len(words) == MAX_QUERY_WORDS else 0
        if not dropped:
            return ""
        return " " + self._.ngettext(
            "Only the first {count} words were searched ({words}); {dropped} more was left out.",
            "Only the first {count} words were searched ({words}); {dropped} more were left out.",
            dropped,
            count=MAX_QUERY_WORDS,
            words=" ".join(words),
            dropped=dropped,
        )

    def _header(
        self, shown: int, query: str, days: int | None, everywhere: bool, more: bool, k: int
    ) -> str:
        _ = self._
        if days is None:
            scope = (
                _("in every project")
                if everywhere
                else _("in this project ({project})", project=self.project)
            )
        elif everywhere:
            scope = _.ngettext(
                "in every project, last {days} day",
                "in every project, last {days} days",
                days,
                days=days,
            )
        else:
            scope = _.ngettext(
                "in this project ({project}), last {days} day",
                "in this project ({project}), last {days} days",
                days,
                project=self.project,
                days=days,
            )
        fields = {"count": shown, "query": query, "scope": scope}
        if more:  # not every match is shown, and they are not counted: too slow for a common word
            header = _.ngettext(
                "The best earlier turn of those that match {query} {scope}.",
                "The best {count} earlier turns of those that match {query} {scope}; best first.",
                shown,
                **fields,
            )
        else:
            header = _.ngettext(
                "{count} earlier turn matches {query} {scope}; best first.",
                "{count} earlier turns match {query} {scope}; best first.",
                shown,
                **fields,
            )
        if more:
            header += (
                _(" More match: add words to narrow.") if k == MAX_K else _(" More match: raise k.")
            )
        return header

    def _search(
        self, query: str, project: str | None, days: int | None, k: int, meaning: bool | None
    ) -> SearchResults:
        """A turn that ran recall_history quotes older turns and outranks them: ask for more
        until k others are in hand (or there are no more), so they can be shown first."""
        fetch = 3 * k
        while True:
            found = self.index.search(query, project=project, days=days, k=fetch, meaning=meaning)
            others = sum(1 for hit in found if NAME not in hit.tools)
            if others >= k or len(found) < fetch or fetch >= MAX_FETCH:
                return found
            fetch = min(4 * fetch, MAX_FETCH)

    def _nothing(self, query: str, days: int | None, everywhere: bool) -> str:
        """Three different nothings, each saying what to do next."""
        _, project = self._, self.project
        if self.index.count(None if everywhere else self.project) == 0:
            if everywhere:
                return _(
                    "Nothing in the history of any project: no turn was recorded there, or all "
                    "were forgotten, so there is nothing to search. Answer from this "
                    "conversation and the code itself."
                )
            return _(
                "Nothing in the history of this project ({project}): no turn was recorded "
                "there, or all were forgotten, so there is nothing to search. Answer from this "
                "conversation and the code itself, or pass everywhere=true to search other "
                "projects.",
                project=project,
            )
        if days is not None and everywhere:
            return _.ngettext(
                "No turn in any project from the last {days} day matches {query}. An older turn "
                "may match: call again without days to search all of the history.",
                "No turn in any project from the last {days} days matches {query}. An older turn "
                "may match: call again without days to search all of the history.",
                days,
                days=days,
                query=query,
            )
        if days is not None:
            return _.ngettext(
                "No turn in this project ({project}) from the last {days} day matches {query}. "
                "An older turn may match: call again without days to search all of the history.",
                "No turn in this project ({project}) from the last {days} days matches {query}. "
                "An older turn may match: call again without days to search all of the history.",
                days,
                project=project,
                days=days,
                query=query,
            )
        if everywhere:
            return _(
                "No earlier turn in any project matches {query}. Try other words (a function, "
                "file or error name).",
                query=query,
            )
        return _(
            "No earlier turn in this project ({project}) matches {query}. Try other words (a "
            "function, file or error name), or everywhere=true for every project.",
            project=project,
            query=query,
        )
