"""Function words dropped from queries, in the ten languages recall-history speaks: English,
Portuguese, Spanish, French, German, Italian, Russian, Japanese, Chinese and Korean.

They carry no evidence about which turn is meant ("what did we decide about the login function"
is a question about `login` and `function`). Words of spaced scripts are compared folded, as
query words are (lowercase, Latin letters without their marks; Russian й and ё stay letters
of their own, as FTS5 keeps them).

Japanese and Chinese are written without spaces and Korean attaches particles to words, so a
query's run of those characters is dropped when it is made only of function words
(`これは何ですか` is これ, は, 何, です, か; `그것은` is 그것 and the particle 은): see
`only_function_words`. A Korean particle counts only after a word (`도로`, a road, is not the
particle 도 followed by 로).
"""

from __future__ import annotations

from history.folding import fold_marks

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

_RUSSIAN = """
и а но да или либо ни не нет же ли бы вот ведь уж лишь только даже тоже также ещё еще уже
в во на с со к ко у о об обо от до из за по под над при про для без через между перед после
около вокруг насчёт насчет среди кроме вместо
я ты он она оно мы вы они меня тебя его её ее нас вас их мне тебе ему ей нам вам им мной тобой
ним ней нами вами ними себя себе собой мой моя моё мое мои твой твоя твоё твое твои свой своя
своё свое свои наш наша наше наши ваш ваша ваше ваши
этот эта это эти этого этой этому этим этих тот та то те того той тому тем тех такой такая
такое такие весь вся всё все всего всех
что чтобы как какой какая какое какие который которая которое которые кто где куда когда
зачем почему откуда сколько чей чья чьё чье чьи
был была было были быть есть будет будут буду будем являюсь является
там тут здесь тогда потом сейчас теперь так тоже очень можно нужно надо назад
"""

_JAPANESE = """
の に は を が で と も へ や か な ね よ わ ぞ さ
から まで より だけ など ほど しか こそ でも ても って けど けれど けれども のに ので ため
だ です ます でした ました だった ません ない なかった ある あります あった いる います いた
する します した して しました される された れる られる なる なった
これ それ あれ どれ この その あの どの ここ そこ あそこ どこ こちら そちら
何 なに なん いつ だれ 誰 どう どうして なぜ どんな どういう
私 わたし 僕 ぼく 俺 あなた 私たち 僕ら 我々 彼 彼女
こと もの よう という とは について に関して として ください でしょう ましょう か
"""

_CHINESE = """
的 了 和 与 及 或 或者 是 在 有 没有 没 不 也 都 就 还 又 再 才 很 太 更 最
我 你 您 他 她 它 我们 你们 他们 她们 它们 咱们 自己
这 那 这个 那个 这些 那些 这里 那里 这儿 那儿 这样 那样
什么 怎么 怎样 怎么样 为什么 哪 哪个 哪些 哪里 谁 几 多少
吗 呢 吧 啊 呀 嘛 着 过 但 但是 可是 因为 所以 如果 虽然 然后
把 被 给 对 从 到 向 跟 关于 之前 以前 之后 以后 一个 一些
"""

_KOREAN = """
그리고 그러나 하지만 그런데 그래서 또는 및 또 혹은 즉
이것 그것 저것 이거 그거 저거 여기 거기 저기 이런 그런 저런 어떤 무슨 무엇 뭐 뭘 어디
언제 누구 누가 왜 어떻게 얼마나 몇
나 너 저 제 내 네 우리 저희 당신 그 그녀 그들
것 거 수 등 때 좀 더 잘 안 못 다 전
있다 없다 하다 했다 한다 했나요 했어요 했습니다 합니다 있어요 있습니다 없어요 없습니다
"""

# Korean particles and endings: function words only after another function word.
_KOREAN_PARTICLES = """
은 는 이 가 을 를 에 에서 에게 한테 께 의 와 과 도 로 으로 만 까지 부터 보다 처럼 랑 이랑 하고
요 이다 입니다 입니까 이에요 예요 였다 였나요 인가요 인지 이죠
"""


def _folded(words: str) -> frozenset[str]:
    return frozenset(fold_marks(words).split())


FUNCTION_WORDS: frozenset[str] = _folded(
    " ".join((_ENGLISH, _PORTUGUESE, _SPANISH, _FRENCH, _GERMAN, _ITALIAN, _RUSSIAN))
)
CJK_FUNCTION_WORDS: frozenset[str] = frozenset(" ".join((_JAPANESE, _CHINESE, _KOREAN)).split())
CJK_PARTICLES: frozenset[str] = frozenset(_KOREAN_PARTICLES.split())
_LONGEST = max(map(len, CJK_FUNCTION_WORDS | CJK_PARTICLES))


def only_function_words(run: str) -> bool:
    """Whether a run of Chinese, Japanese or Korean characters is function words end to end
    (a particle only after a word)."""
    ends = {0}  # where a split of run[:end] into function words can end
    for start in range(len(run)):
        if start not in ends:
            continue
        for end in range(start + 1, min(len(run), start + _LONGEST) + 1):
            piece = run[start:end]
            if piece in CJK_FUNCTION_WORDS or (start and piece in CJK_PARTICLES):
                ends.add(end)
    return len(run) in ends
