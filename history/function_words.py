"""Function words dropped from queries: English, Portuguese, Spanish, French, German, Italian.

They carry no evidence about which turn is meant ("what did we decide about the login function"
is a question about `login` and `function`). Stored folded: lowercase, without diacritics.
"""

from __future__ import annotations

_ENGLISH = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could did do does doing done down during each few for from
further had has have having he her here hers herself him himself his how i if in into is it its
itself just me more most my myself no nor not now of off on once only or other our ours
ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves let lets us
shall may might must also ago yet s t d ll m re ve don didn doesn isn wasn weren won wouldn
shouldn couldn cant wont im ive youre thats whats
"""

_PORTUGUESE = """
o os as um uma uns umas de do da dos das no na nos nas em por para pelo pela pelos pelas com
sem sob sobre entre ate e ou mas que se nao sim ja como quando onde qual quais quem cujo este
esta estes estas esse essa esses essas aquele aquela isto isso aquilo eu tu ele ela nos vos
eles elas me te lhe lhes meu minha meus minhas teu tua seu sua seus suas nosso nossa foi era
ser estar ter havia ha sao esta estao tem mais menos muito pouco ao aos a
"""

_SPANISH = """
el la los las un una unos unas de del al en por para con sin sobre entre hasta y o pero que
se no si ya como cuando donde cual cuales quien este esta estos estas ese esa esos esas aquel
aquella esto eso yo tu el ella nosotros vosotros ellos ellas me te le les mi mis tu tus su sus
nuestro nuestra fue era ser estar tener hay son estan tiene mas menos muy lo
"""

_FRENCH = """
le la les un une des de du au aux en par pour avec sans sur sous entre et ou mais que qui quoi
se ne pas oui non comme quand ou quel quelle quels quelles ce cet cette ces ceci cela je tu il
elle nous vous ils elles me te lui leur leurs mon ma mes ton ta tes son sa ses notre nos votre
vos etait etre avoir est sont ont a plus moins tres y l d j qu n c s
"""

_GERMAN = """
der die das den dem des ein eine einer eines einem einen und oder aber doch wenn dass als wie
wo was wer welche welcher welches mit ohne fur uber unter zwischen von vom zu zum zur bei beim
aus nach vor auf an am im in ist sind war waren sein haben hat hatte nicht kein keine ich du
er sie es wir ihr mich dich sich uns euch mein dein sein ihr unser euer auch noch schon sehr
"""

_ITALIAN = """
il lo la i gli le un uno una di del dello della dei degli delle a al allo alla ai agli alle da
dal dalla dai in nel nella nei con su sul sulla per tra fra e o ma che chi cui non si come
quando dove quale quali questo questa questi queste quello quella io tu lui lei noi voi loro mi
ti ci vi mio mia miei mie tuo tua suo sua nostro nostra era essere avere ha hanno sono piu
"""

FUNCTION_WORDS: frozenset[str] = frozenset(
    " ".join((_ENGLISH, _PORTUGUESE, _SPANISH, _FRENCH, _GERMAN, _ITALIAN)).split()
)
