"""How a PATIENT or DOCTOR span is read, word by word, before its stand-in is drawn.

Which words are kept as written (titles, degrees, lower-case surname particles), which are
initials, what role each name word plays (first or last name, from the span's shape and the
name lists), which names a word's stand-in is drawn from (:func:`_names_for`: of the sex the
lists give it, both first and last names for a word that is both), and what sex the note says
a name's bearer is (:func:`_sex_cues`). :class:`itdeid.render.surrogate.Surrogates` draws the
stand-ins.
"""
from __future__ import annotations

import re

from itdeid.render.surrogate_words import _Words, _name_sexes, _words
from itdeid.text.model_text import model_text


#: Words of a name span that are kept: titles, degrees, generational suffixes.
_NAME_KEEP = frozenset((
    "dr", "drs", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "doctor", "md", "phd", "do",
    "rn", "np", "pa", "pac", "crnp", "dds", "dmd", "mph", "facs", "facp", "jr", "sr", "ii", "iii",
    "iv", "and"))
#: Degrees that are also surnames (Vietnamese "Do", Hmong "Pa"): kept only after a comma
#: ("Smith, DO"), so "Linh Do" is replaced whole.
_NAME_KEEP_AFTER_COMMA = frozenset(("do", "pa"))
#: Particles of surnames, kept when written in lower case ('van der Berg', 'da Silva'): a
#: capitalized 'Van' or 'Del' may be a first name.
_PARTICLES = frozenset(("van", "der", "den", "de", "la", "le", "von", "di", "da", "del", "della", "du",
                        "dos", "das", "bin", "ibn", "al", "el", "ten", "ter"))
#: Titles after which a lone word is a last name ("Mr. Smith").
_TITLES = frozenset(("dr", "drs", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "doctor"))
_LETTERS = r"[^\W\d_]"
_NAME_TOKEN = re.compile(
    rf"(?P<degree>(?<!{_LETTERS})(?i:m\.d|ph\.d|d\.o|r\.n|n\.p|p\.a|d\.d\.s|d\.m\.d)\.?"
    rf"(?!{_LETTERS}))"
    rf"|(?P<word>{_LETTERS}+(?:['’]{_LETTERS}+)*(?:-{_LETTERS}+(?:['’]{_LETTERS}+)*)*)")


#: A possessive ending alone, tagged apart from its name ("'s").
_POSSESSIVE_ALONE = re.compile(r"['’]?[sS]")
_POSSESSIVE = re.compile(r"(.+?)(['’][sS])")


def _possessive(word: str) -> tuple[str, str]:
    """('Okonkwo', "'s") for "Okonkwo's", (word, '') for a word with no possessive ending."""
    match = _POSSESSIVE.fullmatch(word)
    return (match.group(1), match.group(2)) if match else (word, "")


def _kept(text: str, token: re.Match) -> bool:
    """Whether a name word is a title, degree or generational suffix, or a surname's particle
    written in lower case ('van der Berg'), kept as written."""
    if token.group() in _PARTICLES:
        return True
    word = token.group().casefold()
    if word in _NAME_KEEP_AFTER_COMMA:
        return "," in text[:token.start()]
    return word in _NAME_KEEP


#: Two or three capitals without a vowel ('JS', 'MW', 'JRH'): a person's initials, written back
#: as initials (a last name drawn for 'JS' read as 'JIMENEZ').
_INITIALS = re.compile(r"[B-DF-HJ-NP-TV-XZ]{2,3}")


def _names_for(lexicon: _Words, word: str, role: str, cue: str | None = None,
               gendered: bool = True) -> tuple[str, ...]:
    """The names a name word's stand-in is drawn from: a first name of its sex for a first name,
    a last name for a last name; but a word that is a known first name and a known last name
    ('Jordan') draws from the names that are both, of its sex, in either role, so 'Jordan Smith',
    'Mike Jordan' and 'Jordan' alone give it one stand-in (they gave two), which reads as a name
    either way.

    The sex is the one the name lists give the word (:func:`_name_sexes`), and a stand-in is a
    name they give that sex alone ('Alexis', a man's in the gazetteer but mostly a woman's in the
    census, was a man's stand-in). A word they give no sex (an unlisted name, or one both sexes
    bear) draws a name both sexes bear: a husband's unlisted first name drew a woman's name half
    the time. So does a word whose sex the note's ``cue`` contradicts ('M' or 'F': a title or
    relation word before the name, :func:`_sex_cues`), as in 'her husband Jean'. The cue never
    chooses a sex the lists do not give, so a name keeps one stand-in in the notes that say
    'husband' and in those that do not. The gazetteers hold 84 men's names that are both first
    and last names, 9 women's and 13 that both sexes bear: two of a patient's such women's
    names draw one stand-in one time in 9. Without ``gendered`` (the re-substituted training
    copies, whose names the trees read for their shape, not their sex) the draws stay those the
    shipped model was trained on, so its preset still rebuilds it: the gazetteer's last listed
    sex, and all first names for an unlisted one."""
    folded = word.casefold()
    if not gendered:
        sex = lexicon.sex_of.get(folded)
        if folded in lexicon.first_set and folded in lexicon.last_set:
            return lexicon.both_by_sex.get(sex) or lexicon.both
        if role == "first":
            return lexicon.first_by_sex.get(sex, lexicon.first)
        return lexicon.last
    sex = _name_sexes().get(folded)
    if cue and cue != sex:
        sex = None      # the note says the other sex, or the lists say none: a name of both
    if folded in lexicon.first_set and folded in lexicon.last_set:
        return (lexicon.both_one_sex[sex] if sex else lexicon.both_unisex) or lexicon.unisex
    if role == "first":
        return lexicon.one_sex[sex] if sex else lexicon.unisex
    return lexicon.last


#: Titles and relation words that say the sex of the person named right after them.
_SEX_WORDS = {**dict.fromkeys(("mr mister husband son brother father dad grandfather grandson uncle "
                               "nephew boyfriend stepson stepfather").split(), "M"),
              **dict.fromkeys(("mrs ms miss wife daughter sister mother mom mum grandmother "
                               "granddaughter aunt niece girlfriend stepdaughter stepmother").split(), "F")}
#: Words that end the reach of a sex word before a name: 'wife of John' says nothing of John.
_CUE_STOPS = frozenset(("of", "to", "for", "with", "by", "from", "and", "or", "than", "per"))
#: The words and sentence ends a cue is looked for among.
_CUE_TOKEN = re.compile(r"[^\W\d_]+|[.;!?]")


def _sex_cue(text: str, start: int, end: int) -> str | None:
    """'M' or 'F' where a title or relation word (:data:`_SEX_WORDS`) begins the name span
    ``text[start:end]`` ('Mrs. Ann Lee') or stands before it on its line, at most two other words
    between and no sentence end or :data:`_CUE_STOPS` word ('Mr. Lee', 'her husband, retired
    teacher Tom', 'Wife: Ann'); else None. Pronouns are not read: in 'Dr. Tom Lee saw her' the
    pronoun is another person's."""
    first = _CUE_TOKEN.match(text, start, end)
    if first and first.group().casefold() in _SEX_WORDS:
        return _SEX_WORDS[first.group().casefold()]
    line = max(text.rfind("\n", 0, start) + 1, start - 60)
    tokens = _CUE_TOKEN.findall(text, line, start)
    words = 0
    for i in range(len(tokens) - 1, -1, -1):
        low = tokens[i].casefold()
        if low in _SEX_WORDS:
            return _SEX_WORDS[low]
        if low == "." and i and tokens[i - 1].casefold() in _SEX_WORDS:
            continue    # the full stop of 'Mr.'
        if low in ".;!?" or low in _CUE_STOPS or words == 2:
            return None
        words += 1
    return None


def _sex_cues(text: str, spans) -> dict:
    """The sex ``text`` says the bearer of each name word of the name ``spans`` is (case-folded
    word: 'M' or 'F', :func:`_sex_cue`), for every mention of the word in the note alike; a
    word whose mentions say both has none."""
    found: dict[str, set] = {}
    for span in spans:
        cue = _sex_cue(text, span.start, span.end)
        if cue is None:
            continue
        name = model_text(text[span.start:span.end])[0]
        for token in _NAME_TOKEN.finditer(name):
            if token.group("word") and not _kept(name, token):
                for part in _possessive(token.group())[0].split("-"):
                    found.setdefault(part.casefold(), set()).add(cue)
    return {word: cues.pop() for word, cues in found.items() if len(cues) == 1}


def _name_roles(text: str, words: list[re.Match]) -> list[str]:
    """``first``, ``last`` or ``initial`` for each name word, from the name's shape: "Last,
    First" where a comma stands between name words, "Last First" where two words are a known
    last name only and a known first name only, else the last full word is the last name; a
    lone word is a first name only if it is a known first name and no known last name (each
    part of a hyphenated one)."""
    initial = [len(w.group()) == 1 or bool(_INITIALS.fullmatch(w.group())) for w in words]
    comma = text.find(",")
    if (comma >= 0 and any(w.end() <= comma for w in words)
            and any(w.start() > comma for w in words)):
        return ["initial" if one else ("last" if w.end() <= comma else "first")
                for w, one in zip(words, initial)]
    full = [i for i, one in enumerate(initial) if not one]
    roles = ["initial" if one else "first" for one in initial]
    lexicon = _words()

    def only(word: str, names: frozenset, others: frozenset) -> bool:
        # each hyphen-joined part ('Mary-Kate') a name of ``names`` and of no ``others``, a
        # possessive ending aside ("John's" is John's role)
        parts = _possessive(word)[0].casefold().split("-")
        return all(part in names and part not in others for part in parts)
    if len(full) == 2 and only(words[full[0]].group(), lexicon.last_set, lexicon.first_set) \
            and only(words[full[1]].group(), lexicon.first_set, lexicon.last_set):
        roles[full[0]] = "last"         # 'SMITH JOHN' (a header's order): known names say so
    elif len(full) >= 2:
        roles[full[-1]] = "last"
    elif len(full) == 1:
        titled = any(t.strip(".").casefold() in _TITLES for t in re.findall(r"[\w.]+", text))
        first_only = only(words[full[0]].group(), lexicon.first_set, lexicon.last_set)
        if titled or any(initial) or not first_only:
            roles[full[0]] = "last"
    return roles
