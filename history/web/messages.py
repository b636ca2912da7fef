"""Every text the page shows, in English, and the page's messages in one language.

The page holds no sentence of its own: it gets this table, translated by the `page` gettext
domain (history/locale/<locale>/LC_MESSAGES/page.po), inside index.html. Placeholders are
`{name}`, filled in by the page with what it knows then (numbers, names, the search's words).
"""

from __future__ import annotations

from history.i18n import N_, translator

MESSAGES: dict[str, str] = {
    "title": N_("Recall: your agent's history"),
    "heading": N_("Your agent's history"),
    "search_label": N_("Search what was asked and answered"),
    "search_placeholder": N_("e.g. login rate limit"),
    "search_hint": N_(
        "Press / to come back here; arrows and Enter move through the results, Esc goes back."
    ),
    "scope_label": N_("Where"),
    "every_project": N_("Every project"),
    "days_label": N_("When"),
    "any_time": N_("Any time"),
    "last_days": N_("Last {days} days"),
    # Search by meaning off for this search (where the optional extra is installed).
    "words_only_label": N_("Words only"),
    "language_label": N_("Language"),
    "results_heading": N_("Turns that match"),
    "recent_heading": N_("Recent conversations"),
    "asked": N_("Asked:"),
    "answered": N_("Answered:"),
    "work": N_("Work:"),
    "failed": N_("Failed:"),
    "turn_id": N_("Turn: {id}"),
    "edited": N_("Edited:"),
    "read": N_("Read:"),
    "more_files": N_("+{count} more"),
    "project": N_("Project: {project}"),
    "conversation": N_("Conversation: {id}"),
    "turn_count": N_("Turns: {count}"),
    "tainted": N_("This turn read untrusted content: weigh its answer accordingly."),
    # A hit that search by meaning brought (the extra installed), not the words' best matches.
    "by_meaning": N_("Found by meaning: not among the best matches of the words."),
    "tainted_turns": N_("Turns that read untrusted content: {count}"),
    "kept_days": N_(
        "Turns here are kept {days} days: older ones are forgotten for good (recall retain)."
    ),
    "show_older": N_("Show older conversations"),
    "no_conversations": N_("No conversation is recorded here (none was, or all were forgotten)."),
    "no_words": N_(
        "The search has no word to look for: common words like “the” are ignored. Add a "
        "distinctive one: a function, file, error or topic name."
    ),
    "nothing_recorded": N_(
        "Nothing is recorded {where}: no turn was recorded there, or all were forgotten, so "
        "there is nothing to search."
    ),
    "no_match_in_days": N_(
        "No turn {where} from the last {days} days matches “{query}”. An older turn may match."
    ),
    "search_all_time": N_("Search all of the history"),
    "no_match": N_(
        "No turn {where} matches “{query}”. Try other words: a function, file or error name."
    ),
    "search_everywhere": N_("Search every project"),
    "in_project": N_("in the project {project}"),
    "in_any_project": N_("in any project"),
    "back": N_("Back"),
    "conversation_heading": N_("Conversation {id}"),
    "found_turn": N_("The turn that was found"),
    "forget_conversation": N_("Forget this conversation"),
    "forget_project": N_("Forget this project"),
    "confirm_conversation": N_(
        "Forget the conversation “{title}” in {project}? Its turns ({turns}) are deleted for good."
    ),
    "confirm_project": N_(
        "Forget every conversation of the project {project}? Conversations: {conversations}; "
        "turns: {turns}. They are deleted for good."
    ),
    "confirm_yes": N_("Forget"),
    "confirm_no": N_("Keep"),
    "gone_conversation": N_("The conversation “{title}” is forgotten. Turns deleted: {turns}."),
    "gone_project": N_(
        "The project {project} is forgotten. Conversations deleted: {conversations}; turns: "
        "{turns}."
    ),
    "already_gone": N_("It was already forgotten."),
    "conversation_gone": N_("This conversation is not in the history: it may have been forgotten."),
    "token_heading": N_("This service needs its token"),
    "token_label": N_("Token"),
    "token_hint": N_(
        "The token given to recall serve (RECALL_TOKEN). It is kept in this browser tab only."
    ),
    "token_use": N_("Use this token"),
    "token_wrong": N_("That token was refused. Try again."),
    "error": N_("The history could not be read: {detail}"),
    "unreachable": N_("The service did not answer. Is recall serve still running?"),
    "kind_label": N_("Search"),
    "kind_turns": N_("Turns"),
    "kind_files": N_("Files"),
    "file_label": N_("Find the turns that edited a file, or wrote lines of it"),
    "file_placeholder": N_("e.g. src/auth/login.py, or src/auth/login.py:12-20 for lines"),
    "file_heading": N_("Turns that edited {path}"),
    "lines_heading": N_("The turns that wrote lines {lines} of {path}"),
    "no_file_turns": N_(
        "No recorded turn edited {path}. A relative path is read inside the project chosen "
        "under “Where”."
    ),
    "added": N_("Added:"),
    "changed": N_("Removed and added:"),
    "only_read": N_("Read it, edited nothing."),
    "line_number": N_("Line {line}"),
    "no_turn_wrote": N_("No recorded turn wrote this line."),
    "how_sure": N_("How it was matched: {how}"),
    "how_exact_text": N_("the same text"),
    "how_same_commit": N_("the same commit"),
    "how_nearest_in_time": N_("the nearest turn in time"),
    "commit": N_("Commit {commit}"),
    "blame_title": N_("The turns that edited {path}"),
}


def messages(language: str) -> dict[str, str]:
    """The table in `language` (a tag of history.i18n.LANGUAGES; English where a catalogue lacks
    a message)."""
    translations = translator("page", language)
    return {key: translations.gettext(text) for key, text in MESSAGES.items()}
