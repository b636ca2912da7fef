"""The page `recall serve` shows at `/`: search, read and forget the history in a browser.

Static files shipped in the package (`static/`), no build step, nothing fetched from any other
address (`static/vendor/`: the Markdown renderer and its sanitizer, copied from their npm
packages, see its README.md); every text on it comes from `messages.py`, translated for the
reader's language.
"""
