"""Turns to a team's history service instead of the local file: `recall hook` and `recall watch`
with `--server URL` (or `$RECALL_SERVER`, the key in `$RECALL_KEY`), and `recall push`.

Every turn is redacted here, by the same `prepare` the index runs, before it is sent or kept;
a turn the service cannot take now waits in the outbox under the home (outbox.py) and goes
with the next command that posts. Nothing here imports the index or an HTTP library: the hook
starts once per turn (client.py speaks HTTP with the standard library).
"""
