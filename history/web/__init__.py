"""The page `recall serve` shows at `/`: search, read and forget the history in a browser.

Static files shipped in the package (`static/`), no build step, nothing fetched from any other
address; every text on it comes from `messages.py`, translated for the reader's language.
"""
