"""The version of the secret rules (history/redaction), in a module of its own so that what
only compares versions (the re-scan's bookkeeping, opened by every process) does not load the
rules themselves.

Raised whenever a rule is added or changed so that it masks more: the turns already stored are
then re-scanned under the new rules by the upkeep and `recall doctor --rescan`
(history/store/rescan.py). 3: the third round's rules (secrets people paste, in ten languages);
4: a password variable glued to an id (`sess-PASSWORD=…`) masks its value.
"""

from typing import Final

RULES_VERSION: Final = 4

# The re-scan's rows in the settings table (history/store/rescan.py), beside the retention
# settings, all beginning with RESERVED_PREFIX: the version the stored turns follow, and how far
# a re-scan has got.
RESERVED_PREFIX: Final = "(secret rules "
VERSION_KEY: Final = RESERVED_PREFIX + "version)"
THROUGH_PREFIX: Final = RESERVED_PREFIX + "re-scanned through"
