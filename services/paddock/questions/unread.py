"""The words a question's reader did not read: content words beside what a slot read that the vocabulary
does not know ("my *epic* lap time"), so the answer says what it was read as ("I read this as …, leaving
aside “epic”"). Pure data and one pure function."""

from __future__ import annotations

from collections.abc import Iterable

from services.paddock.questions.words import (
    BESIDE,
    BESIDE_SKIP,
    LEAVE_WORDS,
    NEGATING,
    NOT_A_LAP,
    PICK_SKIP,
    vocabulary,
    word_set,
)

# the words of talk that carry no question: greetings, fillers, thanks, units said with a figure, and
# the verbs of asking ("mate, analyse my laps", "was it 45 psi?", "pinpoint where I lose time")
FILLER = word_set(
    """mate dude bro man guys folks lads yeah yep yup nah nope hmm umm uhh err lol haha tbh imo imho btw
    fyi idk omg wow ugh damn dang heck hell bloody gonna wanna gotta kinda sorta cheers thx hiya howdy
    psi bar degrees degree celsius fahrenheit kmh mph rpm percent volts volt amps
    took taken saw seen using used relative wise throughout
    analyse analyze analysis identify pinpoint calculate search graph chart plot display check
    tell show give find list compare measure review cant wont dont arent isnt wasnt werent didnt doesnt
    whether due based fact course real actual exact certain usual single similar large major minor
    thing things stuff experience amount amounts
    otherwise albeit although though unless however whatever whenever wherever anywhere somewhere
    everywhere nowhere hundred thousand teh"""
)
# the words the lap and session readers read beside the vocabulary: a lap left out or beside another, a
# session by its month, weekday or weather ("the lap prior to my slowest", "my session in the wet")
_READ = (
    LEAVE_WORDS
    | NEGATING
    | frozenset(BESIDE)
    | BESIDE_SKIP
    | PICK_SKIP
    | NOT_A_LAP
    | word_set("""january february march april june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday wet rain rainy damp dry
    jan feb mar apr jun jul aug sep sept oct nov dec pause winter summer lunch coffee""")  # "pause": ``tokens``' own word for a break from driving
)
# a part of the car named as the driver's own story ("the x30 has no oil pump"): context, never a figure
_PARTS = word_set("pump radiator hose sensor gauge pads rotor rotors bonnet hood vent cooler fan belt")
# a word shorter than this is an article, a unit or an initial: never a part of the question on its own
_MIN_LEN = 3
_ENDINGS = ("ing", "ed", "es", "s", "er", "est")  # "dropping", "gained", "apexes", "readings": their stem


def _known(word: str, *vocabs: frozenset[str]) -> bool:
    """Whether ``word`` or its stem is a word the reader knows: "hitting" (hit), "lapped" (lap), "jumps"
    (jump); an adverb ("slightly", "especially") only says how much, never what is asked."""
    if word in FILLER or word in _READ or word in _PARTS or word.endswith("ly"):
        return True
    forms = {word}
    for end in _ENDINGS:
        stem = word[: -len(end)]
        if word.endswith(end) and len(stem) >= _MIN_LEN:
            forms |= {stem, stem + "e", stem[:-1] if stem[-1] == stem[-2] else stem}  # "hitting" -> hit
    return any(forms & v for v in vocabs)


# the words after a verb: a word unread before them is what the driver did ("throw any warnings", "shave
# another second off"), not a word of the figure asked ("my epic lap", "oil pressure argggg")
_OBJECT = word_set("my the a an any some me it its up off into onto out down another i you them that this")
NEAR = 2  # an unread word this many words or fewer from a word read: it tells what that word is


def unread(toks: list[str], used: list[bool], known: Iterable[str] = ()) -> tuple[str, ...]:
    """The words of ``toks`` (``words.tokens``) that say something of what was read and were not read
    themselves, in order, each once: a content word the vocabulary does not know (nor a form of one, nor
    filler, a number, a driver's name ``@bo`` or a word of ``known``, the track's corner names) within
    ``NEAR`` words of a word a slot read (``used``): "my *epic* lap time", "oil pressure *argggg*". A
    word far from anything read ("a lapped Miata slowed me down") is the driver's story, not the figure."""
    named = frozenset(x for phrase in known for x in phrase.split())
    got = (
        t
        for i, t in enumerate(toks)
        if t.isalpha()
        and len(t) >= _MIN_LEN
        and not _known(t, vocabulary(), named)
        and any(used[max(0, i - NEAR) : i + NEAR + 1])
        and not _OBJECT & set(toks[i + 1 : i + 2])
    )
    return tuple(dict.fromkeys(got))
