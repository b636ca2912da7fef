"""What `recall serve` can be told, and its defaults: light to import, so the CLI builds its
parser without loading the web stack."""

from __future__ import annotations

LOG_LEVELS = ("debug", "info", "warning", "error")
# A request must arrive whole (head and body) this soon after its first byte, or after the
# connection opened; a connection idle between requests closes after KEEP_ALIVE_SECONDS.
REQUEST_READ_SECONDS = 10.0
KEEP_ALIVE_SECONDS = 5
