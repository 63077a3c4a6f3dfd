"""Surrogates: every PHI span replaced by a realistic stand-in of its class.

A surrogate is drawn with a keyed hash, never with a random generator, so the mapping is

* **consistent within a patient**: the same original string (case-folded, whitespace collapsed) of
  the same class always gets the same surrogate in one patient's notes, and a name is replaced
  part by part, so "Smith" alone and the "Smith" of "John Smith" get the same last name. The
  patient is ``Document.patient``, else the note's id (then each note is its own patient):
  PhysioNet and i2b2 2014 notes carry patient ids; for plain-text files ``itdeid deid`` takes
  them from ``--patient-regex`` or ``--patient-map`` (:mod:`itdeid.batch.patients`);
* **stateless and parallel-safe**: nothing is remembered between calls, so notes of one patient
  may be processed by different worker processes, or in different runs, and still agree;
* **irreversible without the key**: the choice is ``HMAC-SHA256(key, patient + "\\x1f" + class +
  "\\x1f" + normalised original)`` (one class ``NAME`` for PATIENT and DOCTOR, so a name the
  model types either way gets one stand-in); without the key, guessing an original and hashing it tells
  nothing. The same key gives the same output in every run.

Every class keeps the shape of what it replaces:

==========  ==================================================================================
class       surrogate
==========  ==================================================================================
PATIENT,    names from the gazetteers (``first_names.tsv`` of the sex both first-name lists give
DOCTOR      the original, one both sexes bear where they give none or the note says the other
            sex: "her husband Ann"; ``last_names.tsv``), part by part: "Smith, John" stays
            "Last, First", "J. Smith" an initial and a last name, "SMITH" upper case; titles
            and degrees (Dr., Mrs., MD, M.D.; DO and PA only after a comma, being surnames
            too) are kept. A single word is a first name only where it is a known first name
            and no known last name, else a last name. A word that is both ("Jordan") draws
            from the names that are both, wherever it stands, so it keeps one stand-in.
HOSPITAL    an invented name from ``hospital_name_parts.tsv``, cities and last names, in the
            case of the original's name, with the original's suffix ("Medical Center",
            "Clinic", "Hosp", ...) kept as written, else " Hospital"; an all-capital
            abbreviation of 2 to 6 letters ("MGH") becomes other capitals, except a known word
            of 4 or more ("MERCY" gets the stand-in "Mercy Hospital" gets).
LOCATION    by comma-separated part: a hospital's name (one ending in a hospital's word:
            "Ashgrove Memorial", "Fenwick Hospital") the stand-in it gets typed HOSPITAL
            (PhysioNet's gold, which has no hospital class, types hospitals LOCATION, and they
            became US cities); a zip code keeps its digits' shape, a 2-letter state
            abbreviation becomes another, two capitals that are none ("GH") two capitals that
            are none either, a state name another state, a street address
            ("12 Main St") a number of as many digits and a street name (its suffix kept), a
            country another country, a world city another, anything else a US city. Parts are
            drawn independently, so "Boston, MA" may become a city of another state.
ID, PHONE   the same characters' shape: each digit a drawn digit, each letter a drawn letter of
            the same case, everything else kept ("(617) 555-1234" stays "(ddd) ddd-dddd");
            drawn run by run (a run of digits or of letters), so an MRN gets one stand-in
            with or without a '#' or a label, and labels ("MRN", "ext", "x") are kept.
AGE         each number from 90 on becomes another of 90 to 99, the rest ("yo") kept; an age
            without digits ("ninety") becomes digits. Numbers under 90 are kept as written:
            HIPAA's Safe Harbor rule lets ages under 90 stand, and research text needs them
            (i2b2 2014 tags every age; i2b2 2006 and PhysioNet only ages over 89).
DATE        shifted by one offset a patient (:meth:`Surrogates.date_offset`), written back in
            the original format (:mod:`itdeid.render.surrogate_dates`).
==========  ==================================================================================

This module holds :class:`Surrogates`: the keyed draw, the dispatch by class and the assembly
of each class's stand-in. What a stand-in is drawn from, and the shapes read in an original,
live in modules beside it, one concern each:

* :mod:`itdeid.render.surrogate_draw`: the keyed draw (:class:`~itdeid.render.surrogate_draw._Draw`)
  and the reshaping and case helpers every class uses;
* :mod:`itdeid.render.surrogate_words`: the gazetteer lists stand-ins are drawn from;
* :mod:`itdeid.render.surrogate_names`: how a name span is read (titles, particles, initials,
  possessives, each word's role and the sex the note says);
* :mod:`itdeid.render.surrogate_dates`: date shapes, holidays, clock times, pain scores and the
  shift itself;
* :mod:`itdeid.render.surrogate_places`: hospital name endings and abbreviations, address
  shapes;
* :mod:`itdeid.render.surrogate_ids`: identifier, phone and web-address shapes.

Their names keep a leading underscore: they are this module's helpers, not an API of their own.

Not handled, dates aside (:mod:`itdeid.render.surrogate_dates`): the surrogate for an initial
("J.", or "JS": two or three capitals without a vowel) is a letter drawn for each letter, so it
need not be the initial of the surrogate of "John"; two originals can draw the same surrogate
(about 1 in 700 for two first names of one patient). A first name whose sex its note
contradicts ('her husband Jean', a name the lists give women) gets a name both sexes bear in
that note, and a woman's name in the patient's notes that say nothing of the sex: the one case
of two stand-ins for a name of one patient, where the other choice was a woman's name for a
husband.

Nothing here logs note text: :meth:`Surrogates.replace` logs document ids and offsets only.
"""
from __future__ import annotations

import logging
import re
import string
from functools import partial

from itdeid.document import PHI_CLASSES, Document, Span
from itdeid.featurize.zipf import zipf
from itdeid.render.surrogate_dates import (_CLOCK, _DATE_AND_AGE_WORDS, _DATE_WORD_AFTER,
                                           _DATE_WORD_BEFORE, _HOLIDAY_WORDS, _date_pieces,
                                           _holiday_like, _pain_score, _scrub)
from itdeid.render.surrogate_draw import (_Draw, _case_like, _normalise, _reshape, _reshape_new,
                                          _split_space)
from itdeid.render.surrogate_ids import (_ID_LABELS, _ID_RUN, _IPV4, _NANP, _SSN, _WEB_ADDRESS,
                                         _WEB_LABELS, _valid_part)
from itdeid.render.surrogate_names import (_NAME_TOKEN, _POSSESSIVE_ALONE, _kept, _name_roles,
                                           _names_for, _possessive, _sex_cues)
from itdeid.render.surrogate_places import (_DIRECTIONS, _HOME_COUNTRY, _LABELLED_NUMBER, _STREET,
                                            _STREET_SUFFIXES, _TRAILING_STATE, _TRAILING_UNIT,
                                            _TRAILING_ZIP, _UNIT, _ZIP, _abbreviation,
                                            _hospital_suffix)
from itdeid.render.surrogate_words import COMMON_ZIPF, _words
from itdeid.text.model_text import model_text

logger = logging.getLogger("itdeid.render.surrogate")

#: The version of the stand-in scheme: raised whenever the same original, patient and key can
#: give another stand-in, so ``itdeid deid`` refuses to resume a surrogate folder begun with
#: another (one patient's notes would get two stand-ins for one name). 2: dates,
#: IDs run by run, one draw for both name classes. 3: a year or a day alone moves as most
#: of its dates do, a hospital's name takes its case, a word keeps one stand-in in other forms
#: ('MERCY', 'Mercy Hosp', 'Jordan' first or last), a pain score typed DATE is kept. 4: a North
#: American phone number's area code and exchange can be dialled, its country code 1 is kept.
#: 5: a date without a year moves as the same date of a common year does, backwards too (see
#: :data:`~itdeid.render.surrogate_dates._NO_YEAR`); an abbreviated month that becomes 'May' loses
#: its period ('Sept. 16').
#: 6: two capitals of a place that are no state abbreviation ('GH') become two other capitals,
#: not a state's. 7: a place that is a hospital's name ('Ashgrove Memorial') gets a hospital's
#: stand-in, not a city's; 'Memorial' is a hospital's ending kept like 'Hospital'. 8: a first
#: name's sex is the one both name lists give it; a name they give no sex, or whose sex the note
#: contradicts, gets a name both sexes bear (an unlisted name drew from either sex's).
SURROGATE_SCHEME = 8
#: The message separator of the keyed hash (ASCII unit separator: not in normalised note text).
_SEP = "\x1f"
#: The class both name classes are keyed by (see the module docstring).
NAME_KEY = "NAME"
#: Date offsets, in days: at least, at most (before the whole-week correction).
OFFSET_DAYS = (30, 329)
#: An age over 89 in words ('ninety-two', 'a hundred and one'): written back as digits.
_OVER_89_WORDS = re.compile(r"ninety|hundred", re.IGNORECASE)


# --------------------------------------------------------------------------------------------
# The surrogate generator


class Surrogates:
    """Realistic, consistent, keyed surrogates for PHI (see the module docstring).

    Parameters
    ----------
    key : bytes
        The secret that selects every surrogate and date offset (for example
        ``secrets.token_bytes(32)``, kept apart from the output). The same key gives the same
        output across runs and processes; without it, the mapping cannot be reversed by guessing
        an original and hashing it. Whoever holds it can undo every date shift and test guessed
        originals against surrogates, so keep it as secret as the notes; losing it only means
        later runs cannot continue the same mapping.
    broad_names : bool, default False
        Draw names from the 1990 US Census lists (about 5,500 first names and 89,000 surnames)
        instead of the gazetteers' 700 and 1,000: the varied stand-ins of training-time
        re-substitution (:mod:`itdeid.estimators.resubstitute`).
    common_names : float, default 0.0
        With ``broad_names``, the share of name words drawn from the gazetteers' common names
        instead (each word's own keyed draw decides), so the stand-ins are as often ordinary
        words as real names are.

    Attributes
    ----------
    unparsed_dates : int
        DATE spans (or leftover digits beside a date) that no date shape matched and that were
        replaced character by character instead, since this instance was made. Each worker
        process counts its own.
    """

    def __init__(self, key: bytes, broad_names: bool = False, common_names: float = 0.0):
        if not isinstance(key, (bytes, bytearray)) or not key:
            raise ValueError("the surrogate key must be a non-empty bytes secret")
        self._key = bytes(key)
        self.broad_names = broad_names
        self.common_names = common_names
        self.unparsed_dates = 0

    def __repr__(self) -> str:
        return "Surrogates(key=<secret>)"

    # keyed draws
    def _draw(self, patient: str, cls: str, normalised: str) -> _Draw:
        """The draw of ``normalised`` in ``cls`` (:data:`NAME_KEY` for both name classes)."""
        return _Draw(self._key, f"{patient}{_SEP}{cls}{_SEP}{normalised}")

    def date_offset(self, patient: str) -> int:
        """The patient's date shift in days: ±30..330, never a multiple of 7 (so weekdays
        change too), drawn from the key and the patient alone."""
        draw = self._draw(patient, "DATE-OFFSET", "")   # not a class: no original collides
        low, high = OFFSET_DAYS
        days = low + draw.below(high - low + 1)
        if days % 7 == 0:
            days += 1
        return days if draw.below(2) else -days

    # public API
    def surrogate(self, patient: str, cls: str, original: str, cues: dict | None = None) -> str:
        """The surrogate of ``original``, a PHI string of class ``cls`` in the notes of
        ``patient`` (the patient id, or the document id for a note without one); ``cues``: the
        sex its note says each name word's bearer is (:func:`_sex_cues`; default: what a title
        in ``original`` says)."""
        if cls not in PHI_CLASSES:
            raise ValueError(f"PHI class must be one of {', '.join(PHI_CLASSES)}, got {cls!r}")
        if not any(c.isalnum() for c in original):
            return original     # whitespace or punctuation alone identifies no one
        # read as the model reads it (ASCII separators, no invisible characters, accents
        # composed): '03∕14∕2019' is a date to shift, not digits to draw at random
        # ('66∕79∕2018'), and a decomposed 'Hélène' one name, not three pieces
        original = model_text(original)[0]
        if _WEB_ADDRESS.search(original):
            # an email or URL keeps its form whatever class the model gave it (a name or a
            # town drawn for 'jsmith@partners.org' is no address)
            return self._shape(str(patient), "ID", original, _WEB_LABELS)
        if cls in ("PATIENT", "DOCTOR"):
            # one key for both name classes: a surname the model types PATIENT in one place and
            # DOCTOR in another ('Mr. Quintanilla', 'Quintanilla's wife') is one person's name
            if cues is None:
                cues = _sex_cues(original, [Span(0, len(original), cls)])
            return self._name(str(patient), NAME_KEY, original, cues)
        method = {"HOSPITAL": self._hospital, "LOCATION": self._location, "DATE": self._date,
                  "ID": self._shape, "PHONE": self._shape, "AGE": self._age}[cls]
        return method(str(patient), cls, original)

    def replace(self, document: Document, spans: list[Span],
                weekdays: bool = True) -> tuple[str, list[Span]]:
        """The text of ``document`` with each span replaced by its surrogate, and the spans
        re-based onto that text (same classes and subtypes), so the output can be annotated.

        ``spans`` must lie in the text and not overlap (``ValueError`` otherwise, naming the
        document and offsets). The patient is ``document.patient``, else the document id. With
        ``weekdays``, a weekday or holiday just before or after a DATE span is replaced with it
        (its span grows to hold it: :data:`_DATE_WORD_BEFORE`, :data:`_DATE_WORD_AFTER`);
        re-substituted training copies leave the gold spans as they are. A DATE span that is a
        pain score ('pain 7/10', :func:`_pain_score`) is kept as written.
        """
        spans = sorted(spans)
        Document(document.id, document.text, spans).check_spans()
        patient = document.patient or document.id
        # what the note says of its names' sexes, alike for every mention of a name in it
        cues = {} if self.broad_names else _sex_cues(
            document.text, [s for s in spans if s.type in ("PATIENT", "DOCTOR")])
        pieces, new_spans, position, shift = [], [], 0, 0
        for index, span in enumerate(spans):
            score = span.type == "DATE" and _pain_score(document.text, span.start, span.end)
            if weekdays and span.type == "DATE" and not score:
                # 'Monday 3/4/2019' or '3/4/2019 (Monday)' with the date alone tagged: the
                # weekday kept beside the shifted date told the real date's weekday, and the
                # shift mod 7 (a holiday the whole shift)
                before = _DATE_WORD_BEFORE.search(document.text, position, span.start)
                limit = spans[index + 1].start if index + 1 < len(spans) else len(document.text)
                after = _DATE_WORD_AFTER.match(document.text, span.end, limit)
                span = Span(before.start() if before else span.start,
                            after.end() if after else span.end, span.type, span.subtype)
            original = document.text[span.start:span.end]
            unparsed = self.unparsed_dates
            new = original if score else self.surrogate(patient, span.type, original, cues)
            if self.unparsed_dates != unparsed:
                logger.debug("document %s: date %d-%d not parsed; replaced character by "
                             "character", document.id, span.start, span.end)
            pieces += [document.text[position:span.start], new]
            start = span.start + shift
            new_spans.append(Span(start, start + len(new), span.type, span.subtype))
            shift += len(new) - len(original)
            position = span.end
        pieces.append(document.text[position:])
        return "".join(pieces), new_spans

    # ID, PHONE
    def _shape(self, patient: str, cls: str, original: str, labels: frozenset | None = None) -> str:
        """Same characters' shape: each run of digits or of letters drawn for itself (so an MRN
        gets one stand-in whether the span is '4417392', '#4417392' or 'MRN 4417392'), the
        labels of :data:`_ID_LABELS` ('MRN', 'ext', the 'x' of 'x4-5521') and punctuation kept.
        An IPv4 address, an SSN and a North American phone number get parts that can be one
        (:func:`_valid_part`: no area code 057 or 811), and a phone number keeps its country
        code 1."""
        out, position = [], 0
        kind = "ip" if _IPV4.fullmatch(original) else "ssn" if _SSN.fullmatch(original) else None
        if kind is None and cls == "PHONE" and _NANP.fullmatch(original.strip()):
            kind = "nanp1" if re.match(r"\s*\+?1(?!\d)", original) else "nanp"
        for index, run in enumerate(_ID_RUN.finditer(original)):
            out.append(original[position:run.start()])
            word = run.group()
            kept = word.isalpha() and word.casefold() in (_ID_LABELS if labels is None else labels)
            if kept or (kind == "nanp1" and index == 0):     # a label; the country code 1
                out.append(word)
            else:
                out.append(_reshape_new(self._draw(patient, cls, word.casefold()), word,
                                        valid=partial(_valid_part, kind, index) if kind else None))
            position = run.end()
        out.append(original[position:])
        return "".join(out)

    # AGE
    def _age(self, patient: str, cls: str, original: str) -> str:
        """Each number from 90 on becomes 90..99 (never itself), drawn for that number, so "92"
        in "92 yo" and in "92-year-old" agree; numbers under 90 and the text around are kept."""
        def number(match: re.Match) -> str:
            if int(match.group()) < 90:
                return match.group()
            value = 90 + self._draw(patient, cls, str(int(match.group()))).below(10)
            if str(value) == match.group():
                value = 90 + (value - 89) % 10
            return str(value)

        # a decade ('in her 90s') is already the aggregate HIPAA allows, and is kept
        new, count = re.subn(r"\d+(?!['’]?s(?![^\W_]))", number, original)
        if count or any(c.isdigit() for c in original):
            return self._other_words(patient, new)
        if not _OVER_89_WORDS.search(original):
            return original     # no age over 89 in it ('eighty', 'elderly', an empty span)
        return str(90 + self._draw(patient, cls, _normalise(original)).below(10))

    # DATE
    def _date(self, patient: str, cls: str, original: str) -> str:
        """Shifted by the patient's offset in the original format, a holiday written as
        'holiday'; what is left unparsed is replaced character by character (digits always,
        letters too if nothing parsed)."""
        original, holidays = _HOLIDAY_WORDS.subn(lambda m: _holiday_like(m.group()), original)
        pieces = _date_pieces(original, self.date_offset(patient))
        draw = self._draw(patient, cls, _normalise(original))
        if not any(is_date for _, is_date in pieces):
            if _CLOCK.fullmatch(original.strip()):
                return original        # a time of day ('1430') the model tagged with its date
            if holidays and not any(c.isdigit() for c in original):
                return original        # 'Christmas Eve' -> 'holiday': nothing else to shift
            self.unparsed_dates += 1   # letters too only where no digit carries the date
            digits = any(c.isdigit() for c in original)
            new = _reshape_new(draw, original, letters=not digits)
            return self._other_words(patient, new) if digits else new
        leftover = "".join(piece for piece, is_date in pieces if not is_date)
        if any(c.isdigit() for c in _CLOCK.sub("", leftover)):
            self.unparsed_dates += 1
        return "".join(piece if is_date else _scrub(draw, self._other_words(patient, piece))
                       for piece, is_date in pieces)

    def _other_words(self, patient: str, text: str) -> str:
        """``text``, beside the numbers of a DATE or AGE span, with each word that may be a name
        replaced as a last name (one keyed draw with the name classes): a known first or last
        name, or a word rarer than everyday English. The trees sometimes type a name and the
        date after it as one DATE span, and its surrogate kept the name ('John Smith
        07/03/2018'). Date and age words and common words stay."""
        lexicon = _words()

        def word(match: re.Match) -> str:
            found = match.group()
            low = found.casefold()
            if low in _DATE_AND_AGE_WORDS or (low not in lexicon.first_set and low not in lexicon.last_set
                                              and zipf(low) >= COMMON_ZIPF):
                return found
            return self._name_word(patient, NAME_KEY, found, "last")
        return re.sub(r"[^\W\d_]+", word, text)

    # PATIENT, DOCTOR
    def _name(self, patient: str, cls: str, original: str, cues: dict) -> str:
        """Name word by word (hyphenated parts apart), titles and degrees kept; a possessive
        ending is kept after the stand-in of the name it ends, so 'Okonkwo's' is the same
        person as 'Okonkwo' (it drew another name, and a lone "'s" became "'t")."""
        if _POSSESSIVE_ALONE.fullmatch(original.strip()):
            return original
        tokens = list(_NAME_TOKEN.finditer(original))
        words = [t for t in tokens if t.group("word") and not _kept(original, t)]
        if not words:
            if not any(c.isdigit() for c in original):
                return original     # a title or punctuation alone ('Dr.', ''): no name to replace
            return self._single_last(patient, cls, original)
        draw = self._draw(patient, cls, _normalise(original))   # for stray digits only
        out, position = [], 0
        for word, role in zip(words, _name_roles(original, words)):
            name, ending = _possessive(word.group())
            out += [_reshape(draw, original[position:word.start()], letters=False),
                    self._name_word(patient, cls, name, role, cues) + ending]
            position = word.end()
        out.append(_reshape(draw, original[position:], letters=False))
        return "".join(out)

    def _name_word(self, patient: str, cls: str, word: str, role: str, cues: dict | None = None) -> str:
        """One name word: each hyphen-joined part drawn for itself in its role's list, of the
        sex the lists and ``cues`` give it (:func:`_names_for`)."""
        parts = []
        for part in word.split("-"):
            draw = self._draw(patient, cls, part.casefold())
            broad = self.broad_names
            if broad and self.common_names and draw.below(1000) < round(1000 * self.common_names):
                broad = False
            lexicon = _words(broad)
            if role == "initial":     # 'J' or 'JS': a letter drawn for each
                letters = "".join(draw.choice(string.ascii_uppercase, avoid=c) for c in part.upper())
                parts.append(letters.lower() if part.islower() else letters)
                continue
            cue = (cues or {}).get(part.casefold())
            names = _names_for(lexicon, part, role, cue, gendered=not self.broad_names)
            parts.append(_case_like(part, draw.choice(names, avoid=part)))
        return "-".join(parts)

    def _single_last(self, patient: str, cls: str, original: str) -> str:
        """A name span with no name word in it (only a title, or digits): a last name."""
        draw = self._draw(patient, cls, _normalise(original))
        return _case_like(original, draw.choice(_words(self.broad_names).last, avoid=original))

    # HOSPITAL
    def _hospital(self, patient: str, cls: str, original: str) -> str:
        """A drawn name with the original's suffix, drawn for the name without it, so
        "Cedar Hospital" and "Cedar Medical Center" keep one name. The name is written in the
        case of the original's name and the suffix as the original writes it ("MERCY Hospital"
        took the word list's case, "Christian Hospital"); an added " Hospital" in the name's."""
        lead, core, trail = _split_space(original)
        suffix = _hospital_suffix(core)
        head = core[:len(core) - len(suffix)].rstrip(" ,-") if suffix else core
        separator = core[len(head):len(core) - len(suffix)] if suffix else " "
        draw = self._draw(patient, cls, _normalise(head))
        if not suffix and _abbreviation(head):
            return lead + _reshape_new(draw, head) + trail     # an abbreviation: MGH
        new_head = _case_like(head or core, self._hospital_head(draw, head))
        if not head:
            separator = " "
        written_suffix = core[len(core) - len(suffix):] if suffix else _case_like(head, "Hospital")
        return lead + new_head + separator + written_suffix + trail

    def _hospital_head(self, draw: _Draw, head: str) -> str:
        """An invented hospital name, never ``head``."""
        lexicon = _words()
        parts = lexicon.hospital
        for _ in range(20):
            kind = draw.below(6)
            if kind == 0:
                new = draw.choice(parts["adjective"]) + draw.choice(parts["landform"]).lower()
            elif kind == 1:
                new = f"{draw.choice(parts['adjective'])} {draw.choice(parts['landform'])}"
            elif kind == 2:
                new = f"St. {draw.choice(parts['saint'])}'s"
            elif kind == 3:
                new = draw.choice(lexicon.cities)
            elif kind == 4:
                new = draw.choice(parts["descriptor"])
            else:
                new = draw.choice(lexicon.last)
            if new.casefold() != head.casefold():
                return new
        return new

    # LOCATION
    def _location(self, patient: str, cls: str, original: str) -> str:
        """Part by part, between commas and line ends (see the module docstring)."""
        pieces = re.split(r"(\s*[,;\n]\s*)", original)
        new = "".join(piece if index % 2 else self._place(patient, cls, piece)
                      for index, piece in enumerate(pieces))
        if (new.casefold() == original.casefold() and any(c.isalnum() for c in original)
                and original.strip().casefold() not in _HOME_COUNTRY):
            return _reshape_new(self._draw(patient, cls, _normalise(original)), original)
        return new

    def _place(self, patient: str, cls: str, part: str) -> str:
        """One comma-separated part of a location."""
        lead, core, trail = _split_space(part)
        if not core:
            return part
        return lead + self._place_core(patient, cls, core) + trail

    def _place_core(self, patient: str, cls: str, core: str) -> str:
        """One part without its surrounding whitespace: zip, state, street, unit, place."""
        lexicon = _words()
        draw = self._draw(patient, cls, _normalise(core))
        if _ZIP.fullmatch(core):
            return _reshape_new(draw, core)
        if core.casefold() in _HOME_COUNTRY:
            return core      # the country of every note: no smaller area than a state (HIPAA)
        if len(core) == 2 and core.isalpha() and core.upper() in lexicon.state_abbrs:
            return _case_like(core, draw.choice(lexicon.state_abbrs, avoid=core.upper()))
        if len(core) == 2 and core.isalpha() and core.isupper():
            # 'GH', a hospital's initials, is no state: other capitals, never a state's ('to
            # GH' became 'to OR', 'to IN', 'to OK' in the output and in the re-substituted
            # training copies; experiments/NOTEBOOK.md, measured what that did)
            return _reshape_new(draw, core, valid=lambda new: new not in lexicon.state_abbrs)
        labelled = _LABELLED_NUMBER.fullmatch(core)
        if labelled:         # 'P.O. Box 123', 'Route 9': the label kept, the number drawn
            return labelled["label"] + _reshape_new(draw, labelled["number"])
        unit = _TRAILING_UNIT.fullmatch(core)
        if unit:             # '12 Main Street Apt 3': the street and the unit each on its own
            return (self._place_core(patient, cls, unit["head"]) + unit["space"]
                    + self._place_core(patient, cls, unit["tail"]))
        tail = _TRAILING_ZIP.fullmatch(core) or _TRAILING_STATE.fullmatch(core)
        if tail and (tail["tail"] in lexicon.state_abbrs or tail["tail"][0].isdigit()):
            # "Boston MA 02115", "Boston MA": each piece on its own
            return (self._place_core(patient, cls, tail["head"]) + tail["space"]
                    + self._place_core(patient, cls, tail["tail"]))
        unit = _UNIT.fullmatch(core)
        if unit and any(c.isdigit() for c in unit["rest"]):
            return unit["label"] + _reshape_new(draw, unit["rest"])
        street = _STREET.fullmatch(core)
        if street:
            # '12 Main St Boston': the street ends at its suffix and a town follows
            words = list(re.finditer(r"\S+", core))
            plain = [w.group().strip(".,").casefold() not in _STREET_SUFFIXES | _DIRECTIONS for w in words]
            ends = [i for i in range(2, len(words) - 1)
                    if not plain[i] and words[i].group().strip(".,").casefold() in _STREET_SUFFIXES
                    and all(plain[i + 1:])]
            if ends:
                cut, rest = words[ends[0]].end(), words[ends[0] + 1].start()
                return (self._place_core(patient, cls, core[:cut]) + core[cut:rest]
                        + self._place_core(patient, cls, core[rest:]))
            return self._street(patient, cls, street)
        if any(c.isdigit() for c in core):
            return _reshape_new(draw, core)
        if _hospital_suffix(core):
            # a hospital typed LOCATION (PhysioNet's gold has no hospital class): a hospital's
            # stand-in, drawn as the same name typed HOSPITAL draws it
            return self._hospital(patient, "HOSPITAL", core)
        folded = core.casefold()
        for names, folded_names in lexicon.places:
            if folded in folded_names:
                return _case_like(core, draw.choice(names, avoid=core))
        return _case_like(core, draw.choice(lexicon.cities, avoid=core))

    def _street(self, patient: str, cls: str, street: re.Match) -> str:
        """A house number of as many digits (not starting with 0) and a street name drawn for
        the original name, with its suffix and direction words ("N", "St", "Avenue") kept."""
        words = street["name"].split(" ")
        tail = []
        while len(words) > 1 and words[-1].strip(".,").casefold() in _STREET_SUFFIXES | _DIRECTIONS:
            tail.insert(0, words.pop())
        head = []
        while len(words) > 1 and words[0].strip(".,").casefold() in _DIRECTIONS:
            head.append(words.pop(0))
        name = " ".join(words)
        # the number drawn for itself and the street's name, not for how the suffix is spelled:
        # '12 Main St' and '12 Main Street' are one address
        draw = self._draw(patient, cls, f"{street['number'].casefold()} {_normalise(name)}")
        number = _reshape_new(draw, street["number"])
        if number[0] == "0":
            number = str(1 + draw.below(9)) + number[1:]
        name_draw = self._draw(patient, cls, _normalise(name))
        if any(c.isdigit() for c in name):
            new_name = _reshape_new(name_draw, name)     # "5th": an ordinal street
        else:
            new_name = _case_like(name, name_draw.choice(_words().streets, avoid=name))
        return number + street["space"] + " ".join(head + [new_name] + tail)
