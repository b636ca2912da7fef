"""The benchmark's word stock: English prose and programming terms, inflected, in a fixed order.

`vocabulary()` returns about three thousand distinct words ranked for a Zipf draw: function words
at the top (as in any English text), then every other word in a fixed shuffled order, so the
frequency of a word does not follow the alphabet. The order is the same on every run.
"""

from __future__ import annotations

import random
from functools import cache

FUNCTION = """the to and of a in is it that for this we you on with be as not are or if can
but so at by from have an was what there do all will would when which then just should
they one about how i them our into also out up only more some other could than its did does
because been any where no yes why these those after before while here now"""

VERBS = """add run get make find read write keep send take see throw hold break allow apply ask
assert build call catch change check clean clear close commit
compare compile compute configure connect convert copy create debug declare decode define delete
deploy detect disable dispatch display document download drop dump edit emit enable encode
ensure enter escape evaluate execute exit expand expect export extend extract fail fetch filter
fix flush fold follow force format generate handle hash ignore implement import improve include
index infer inherit initialize inject insert inspect install invoke iterate join kill launch
limit link list load lock log map mark match measure merge migrate mock modify monitor mount move
name normalize notify open optimize order override pack pad parse pass patch pause persist pick
pin plan poll post print process profile publish pull push query queue raise rebase receive
record reduce refactor refresh register reject release reload remove rename render reorder
repeat replace reply report request require reset resolve restart restore retry return reuse
revert review rotate round route sanitize save scan schedule scroll search seed select serialize
serve settle share shift shrink skip slice sort spawn split start stash stop store stream strip
submit subscribe support swap switch sync tag test tokenize track transform trigger trim truncate
type unlock unpack update upgrade upload use validate verify visit wait walk warn watch wrap
yield accept adjust aggregate annotate append archive assign attach authenticate authorize
backup batch benchmark bind block bootstrap bump bundle calculate cancel capture cast chain chunk
clone collect combine complete compress concat confirm consume contain continue count crash
crawl decide decorate deduplicate delay deny depend deprecate describe design destroy diff
disconnect discover drain duplicate embed encrypt enqueue estimate expire explain expose fill
fire flag flatten fork gather grant group guard highlight hook host hydrate identify increment
inline intercept invalidate isolate label leak lint listen locate materialize memoize mirror
mutate nest observe obtain offset omit paginate paint parallelize partition paste pipe populate
predict prefetch prepare preserve prevent prompt propagate protect provide prune quote rank
reach rebuild recover redirect refer reindex relate remember repair replay reproduce resize
respond restrict resume retain retrieve reverse revoke sample scale scope scrape seal shard
simplify simulate sketch slow snapshot solve specify squash stage stub summarize suppress
suspend tolerate touch trace translate traverse tune unify unwrap vendor wire"""

IRREGULAR_PAST = """build:built catch:caught find:found write:wrote read:read throw:threw
keep:kept send:sent
hold:held run:ran break:broke choose:chose get:got take:took make:made see:saw think:thought
bring:brought say:said give:gave know:knew feel:felt leave:left meet:met"""
DOUBLING = """drop map log pin plan skip strip swap trim commit submit pad tag stop ship
wrap step chop scan snap flag plug grab run nest"""

NOUNS = """api app argument array attribute backend bug byte callback class client column
command comment component config connection constant constructor container context controller
cookie counter cursor daemon dashboard database dataclass date decorator default dependency
deployment dict dictionary directory docstring endpoint engine entry enum environment exception
expression extension feature field file fixture float folder form framework function generator
getter graph handler header heap helper id identifier image implementation input instance
integer interface issue item iterator job key keyword kernel lambda layer layout library line
linter listener literal logger loop manager method metric middleware migration model module
mutex namespace network node number object operator option output package page pager parameter
parser path pattern payload permission pipeline plugin pointer policy pool port producer program
promise property protocol proxy range reference regex registry replica repo repository resolver
resource response result role root router row rule runtime schema script selector semaphore
sequence server service session setter setting shell signal signature snippet socket source
spec statement status struct style subclass subprocess suite symbol table target task template
tenant terminal thread timeout timer timestamp tool tuple union utility value variable vector
view warning webhook widget window worker workflow workspace wrapper account action address
agreement amount approach area article aspect attempt author balance base benefit bit board
body book bottom box brain budget business button capacity card case cause center chance channel
chapter character choice circle claim clock code color company comparison concept concern
condition consequence contract conversation corner cost course cover customer cycle day deal
decision degree delivery demand description detail difference difficulty direction discussion
distance distribution door draft edge effect effort element end evening example exercise
experience expert fact factor failure family fault figure finding floor frame friend front game
gap goal ground guest guide habit half hand height hole home hour house idea incident increase
instruction intent introduction island journey kind kitchen lesson letter level life location
machine market material meaning meeting member message minute mistake moment month morning
motion nature need night note notice occasion office opinion opportunity organization origin
outcome owner pair paper part party passage payment people period person phase picture piece
place platform player point position possibility power practice preference price priority
problem procedure product project proof proposal purpose question rate reader reason recipe
region relationship reward risk room scene screen season second section sense series shape side
sign situation size skill slot solution sound space speed spot standard story strategy strength
structure student study subject success suggestion summary surface surprise system team
technique term text theory thing thought time title topic town trip trouble truth turn variety
version video voice volume wall way week weight word world year"""

NO_PLURAL = "data information knowledge traffic safety research fun evidence"
MASS = """data information knowledge feedback traffic safety research evidence progress logic
memory storage latency throughput overhead performance security coverage tooling history"""

OTHER = """able actual additional async asynchronous available bad basic big binary blank
broken busy careful central certain cheap complex concurrent consistent correct current custom
dead deep deterministic different difficult dirty distinct dynamic early easy empty entire equal
exact existing expensive explicit external extra fair false familiar fast final fine first
flaky fresh full generic global good great heavy hidden high huge immutable important inner
internal invalid large last late lazy legacy likely little live local long loose low main major
manual minor missing mutable native negative nested nice normal obvious odd official old
optional original outer overall partial pending persistent plain possible previous primary
private proper public pure quick rare raw ready real recent recursive redundant relative remote
required right rough safe same secondary secure separate serial shallow sharp short silent
similar simple single small smart soft solid sparse special specific stable stale static steady
strange strict strong subtle sudden sure synchronous temporary thin tight tiny total transient
true typical unique unknown unused upper urgent useful valid various verbose virtual visible weak
whole wide wrong actually again almost already always anyway basically carefully clearly
correctly currently directly easily eventually exactly finally frankly generally hopefully
immediately instead later maybe mostly nearly never often perhaps probably properly quickly
rather really recently simply slightly somewhere soon still together twice usually python rust
javascript typescript golang java sql sqlite postgres redis docker kubernetes git github linux
macos windows http https json yaml toml csv xml html css utf8 ascii unicode pytest mypy ruff pip
venv npm react django flask fastapi sqlalchemy alembic pydantic numpy pandas asyncio uvicorn
nginx bash zsh vim emacs vscode ci todo fixme wip prod staging localhost ssh tcp udp dns tls
oauth cli gui ui cpu gpu ram io ok nan utc iso"""


IRREGULAR = dict(pair.split(":") for pair in IRREGULAR_PAST.split())
DOUBLED = set(DOUBLING.split())


def _third_person(verb: str) -> str:
    if verb.endswith(("s", "x", "z", "ch", "sh")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _stem(verb: str) -> str:
    """The stem -ed and -ing attach to: `parse` -> `pars`, `drop` -> `dropp`."""
    if verb in DOUBLED:
        return verb + verb[-1]
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1]
    return verb


def verb_forms(verb: str) -> list[str]:
    stem = _stem(verb)
    if verb.endswith("y") and verb[-2] not in "aeiou":
        past = verb[:-1] + "ied"
    else:
        past = IRREGULAR.get(verb, stem + "ed")
    return [verb, _third_person(verb), past, stem + "ing"]


def plural(noun: str) -> str:
    return _third_person(noun)


def _forms() -> list[str]:
    words: list[str] = []
    for verb in VERBS.split():
        words += verb_forms(verb)
    for noun in NOUNS.split():
        words += [noun] if noun in NO_PLURAL.split() else [noun, plural(noun)]
    return words + MASS.split() + OTHER.split()


@cache
def vocabulary() -> tuple[str, ...]:
    """Every word, most frequent first: function words, then a fixed shuffle of the rest."""
    function_words = list(dict.fromkeys(FUNCTION.split()))
    skip = set(function_words)
    content = [w for w in dict.fromkeys(_forms()) if w not in skip]
    random.Random(20260101).shuffle(content)
    # Base forms of the most common coding verbs and nouns come early, as in real transcripts.
    early = set(VERBS.split()[:60] + NOUNS.split()[:80])
    common = [w for w in content if w in early]
    rest = [w for w in content if w not in early]
    return tuple(function_words + common + rest)


@cache
def verbs() -> tuple[str, ...]:
    return tuple(VERBS.split())


@cache
def nouns() -> tuple[str, ...]:
    return tuple(NOUNS.split() + MASS.split())
