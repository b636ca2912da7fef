"""Every text the page shows, in English, and the page's messages for one language.

The page never holds a sentence of its own: it gets this table, translated, inside index.html.
Placeholders are `{name}`, filled in by the page (numbers, dates and names it knows then).
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "title": "Recall: your agent's history",
    "heading": "Your agent's history",
    "search_label": "Search what was asked and answered",
    "search_placeholder": "e.g. login rate limit",
    "search_hint": "Press / to come back here; arrows and Enter move through the results.",
    "scope_label": "Where",
    "every_project": "Every project",
    "days_label": "When",
    "any_time": "Any time",
    "last_days": "Last {days} days",
    "language_label": "Language",
    "searching": "Searching…",
    "loading": "Loading…",
    "results_heading": "Turns that match",
    "recent_heading": "Recent conversations",
    "asked": "Asked",
    "answered": "Answered",
    "edited": "Edited",
    "read": "Read",
    "more_files": "+{count} more",
    "project": "Project",
    "conversation": "Conversation",
    "turn_count": "Turns: {count}",
    "tainted": "This turn read untrusted content: weigh its answer accordingly.",
    "tainted_turns": "Turns that read untrusted content: {count}",
    "open_conversation": "Open the conversation",
    "show_older": "Show older conversations",
    "no_conversations": "No conversation is recorded here yet (or all were forgotten).",
    "no_words": "The search has no word to look for: common words like “the” are ignored. "
    "Add a distinctive one: a function, file, error or topic name.",
    "nothing_recorded": "Nothing is recorded in {where}: no turn was recorded there, or all "
    "were forgotten, so there is nothing to search.",
    "no_match_in_days": "No turn in {where} from the last {days} days matches “{query}”. "
    "An older turn may match.",
    "search_all_time": "Search all of the history",
    "no_match": "No turn in {where} matches “{query}”. Try other words: a function, file or "
    "error name.",
    "search_everywhere": "Search every project",
    "this_project": "the project {project}",
    "any_project": "any project",
    "back": "Back",
    "conversation_heading": "Conversation {id}",
    "found_turn": "The turn that was found",
    "forget_conversation": "Forget this conversation",
    "forget_project": "Forget this project",
    "confirm_conversation": "Forget the conversation “{title}” ({turns} turns, in {project})? "
    "Its turns are deleted for good.",
    "confirm_project": "Forget every conversation of the project {project} ({conversations} "
    "conversations, {turns} turns)? They are deleted for good.",
    "confirm_yes": "Forget",
    "confirm_no": "Keep",
    "gone_conversation": "The conversation “{title}” is forgotten: {turns} turns deleted.",
    "gone_project": "The project {project} is forgotten: {conversations} conversations, "
    "{turns} turns deleted.",
    "already_gone": "It was already forgotten.",
    "token_heading": "This service needs its token",
    "token_label": "Token",
    "token_hint": "The token `recall serve` was started with (RECALL_TOKEN). "
    "It is kept in this tab only.",
    "token_use": "Use this token",
    "token_wrong": "That token was refused. Try again.",
    "error": "The history could not be read: {detail}",
    "unreachable": "The service did not answer. Is `recall serve` still running?",
}


def messages(language: str) -> dict[str, str]:
    """The table in `language` (English where a message has no translation)."""
    del language  # the catalogues arrive with history.i18n
    return dict(MESSAGES)
