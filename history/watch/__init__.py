"""`recall watch`: every agent's sessions imported while the agent writes them.

stores.py: what is followed (each format's store) and which session files changed;
sources.py: when to look (file-system notifications through watchfiles, else polling);
follow.py: the loop that imports what changed; service.py: the user service that runs it.
"""
