"""Dates: the shapes a DATE span is read in and the shift that moves them.

The offset is 30 to 330 days, earlier or later, drawn from the patient's HMAC and never a
whole number of weeks, so every date of a patient moves by the same number of days (intervals
survive), and a day, a month name alone and a weekday alone always change. Recognised shapes
(separators, zero padding, 2- or 4-digit year, month name or abbreviation and its case, ordinal
suffixes and a leading weekday are all kept): ``3/7/2019``, ``03/07/19``, ``2019-03-07``,
``03-07-2019``, ``20190307``, ``March 7, 2019``, ``Mar. 7th 2019``, ``7 Mar 2019``, ``7 Mar 19``,
``7/Mar/19``,
``7-Mar-2019``, ``05-JAN-10``, ``7th of March``, ``Mar 7``, ``3/7``, ``March 2019``, ``3/2019``,
``12/98`` (month and two-digit year where the day cannot be one), ``2019``, ``'63``, ``March``,
``Monday``; and, only as a whole span, ``92`` (a bare two-digit number is a year, as PhysioNet's
DateYear "92" of "MI '92", whose apostrophe lies outside the span) and ``11th`` or ``the 11th``
(a day alone).

* Numeric dates are read month first (US) unless only day first is a valid date.
* A date without a year is shifted as if in the common year 2001 (as three years in four are,
  so '3/7' moves as '3/7/2019' does; 2/29 as if in 2000); a month and year as if on the 15th;
  a day alone to the day most months of 2001 move it to, never itself (:func:`_day_alone`).
  Four digits that are no year alone and read as a 24-hour time ('0830') are kept.
* A year alone moves as the offset moves its middle day, 2 July (:func:`_year_alone`): into the
  year most of its dates move into, so 'In 2019' agrees with the '3/14/2019' beside it as often
  as one year can. With an offset under half a year (about half the patients) that is the year
  as written, which tells no more than the full dates do: most of them stay in their year too.
* Two-digit years are read with a pivot (00-49: 2000s, 50-99: 1900s), which only matters for
  leap days, and are written back with two digits.
* Zero padding: a date with a zero-padded day or month, and every year-first date, is written
  padded; one without (``12/25/2010``) unpadded (so "12/25/2010" style cannot tell "1/5/2010"
  from "01/05/2010" and writes the former).
* A DATE span that is a pain score, N/10 beside 'pain', 'rates', 'score' or 'scale' ('pain
  7/10'), is kept as written by :meth:`Surrogates.replace` (:func:`_pain_score`).
* A holiday ("Christmas Eve", "Thanksgiving", "4th of July") is a date in a word: it is
  written as "holiday" (in its case), alone or beside a date, since kept it gave the shift away.
* A DATE span that no shape matches has its digits replaced like an ID (its letters too where it
  has no digit, so a word does not survive): no original digit is left, and it is counted in
  :attr:`Surrogates.unparsed_dates`. Digits left over beside a recognised date are replaced and
  counted the same way, except clock times ("3/7/2019 10:30"), which are kept as written.

Not handled: decades ("1990s") and seasons go through that fallback; another word beside a
recognised date ("Spring 2010") is kept as written; a range is shifted date by date; day-first notes
("03/07/2019" meaning 3 July) are read month first.

``Surrogates`` is :class:`itdeid.render.surrogate.Surrogates`, which writes a DATE span's
stand-in from :func:`_date_pieces` and the patient's offset.
"""
from __future__ import annotations

import datetime as _dt
import re

from itdeid.render.surrogate_draw import _Draw, _case_like, _reshape, _split_space


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_B = r"(?<![^\W_])"   # not after a letter or digit
_E = r"(?![^\W_])"    # not before a letter or digit
_MON = (r"(?P<mon>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
        r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![^\W\d_])\.?")
_WDAY = (r"(?P<wd>mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
         r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)(?![^\W\d_])\.?")
_WD_OPT = rf"(?:{_WDAY},?\s*)?"
_DAY = r"(?P<d>\d{1,2})(?P<ord>st|nd|rd|th)?"
# A two-digit year after a month name only behind an apostrophe or hyphen ("Jan '10",
# "5-Jan-10"), so "Jan 5 10:30" is not read as 2010.
_YEAR = r"['’]?(?P<y>\d{4}|(?<=['’-])\d{2})"
#: Date shapes, most specific first; the first that matches (and is a valid date) wins.
_DATE_PATTERNS = tuple(re.compile(p, re.IGNORECASE) for p in (
    # a range of days in one month: 'March 7-9, 2019', 'Jan 5 through 9', 'March 7th and 9th'
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"\s*(?:-|–|through|thru|to|and|&)\s*"
    + r"(?P<d2>\d{1,2})(?P<ord2>st|nd|rd|th)?" + r"(?:(?:\s*,\s*|\s+)" + _YEAR + r")?" + _E,
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"(?:\s*,\s*|\s+|-)" + _YEAR + _E,
    # a two-digit year after the day, not a clock's hour: 'Dec 31 99', 'Dec. 31st, 99'
    _B + _WD_OPT + _MON + r"[\s-]*" + _DAY + r"(?:\s*,\s*|\s+)(?P<y>\d{2})(?![^\W_]|:)",
    _B + _WD_OPT + _DAY + r"(?:\s+of)?[\s-]*" + _MON + r"(?:\s*,\s*|[\s-]+)?" + _YEAR + _E,
    # a two-digit year after the month, not a clock's hour: '14 Mar 19' (its '19' was drawn as
    # leftover digits, the year scrambled), and '14/Mar/19'
    _B + _WD_OPT + _DAY + r"[ \t]+" + _MON + r"[ \t]+(?P<y>\d{2})(?![^\W_]|:)",
    _B + _DAY + r"/" + _MON + r"/(?P<y>\d{4}|\d{2})" + _E,
    _B + _WD_OPT + r"(?P<y>\d{4})(?P<s>[-/.])(?P<m>\d{1,2})(?P=s)(?P<d>\d{1,2})(?:(?=T\d)|" + _E + ")",   # ISO 'T10:30'
    _B + r"(?P<y>\d{4})(?P<s>[-/])(?P<m>0[1-9]|1[0-2])" + _E,                           # '2019-03'
    _B + r"(?P<y>\d{4})\s+" + _MON + r"\s+" + _DAY + _E,                                # '2019 March 7'
    # a range of days written with numbers: '3/14-16/2019', '3/14-16' (its last day was drawn as
    # leftover digits: '9/14-71/2018')
    _B + _WD_OPT + r"(?P<m>\d{1,2})/(?P<d>\d{1,2})\s*[-–]\s*(?P<d2>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?"
    + r"(?![/.]?\d)" + _E,
    _B + _WD_OPT + r"(?P<m>\d{1,2})(?P<s>[-/.])(?P<d>\d{1,2})(?P=s)(?P<y>\d{4}|\d{2})" + _E,
    _B + r"(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})" + _E,
    _B + _WD_OPT + _MON + r"[\s-]*(?:the\s+)?" + _DAY + _E,
    _B + _WD_OPT + _DAY + r"(?:\s+of)?[\s-]*" + _MON + _E,
    _B + _MON + r"(?:\s*,\s*|[\s-]+)?" + _YEAR + _E,
    _B + _MON + r"\s+(?P<y>\d{2})" + _E,            # 'Dec 99': a number no day can be
    # 'Tuesday the 7th': a weekday and its day ('Friday 3/8' is a weekday and a month/day)
    _B + _WDAY + r",?\s+(?:the\s+)?" + _DAY + r"(?![/.-]\d)" + _E,
    _B + r"(?P<m>\d{1,2})(?P<s>[-/])(?P<y>\d{4})" + _E,
    _B + _WD_OPT + r"(?P<m>\d{1,2})/(?P<d>\d{1,2})" + _E,
    _B + r"(?P<m>\d{1,2})/(?P<y>\d{2})" + _E,
    r"['’](?P<y>\d{2})" + _E,
    _B + r"(?P<y>1[6-9]\d\d|20\d\d|21\d\d)" + _E,   # a year alone; '0830', '2300' are clock times
    _B + _MON + _E,
    _B + _WDAY + _E,
))
#: A holiday: a date in a word. Kept beside a shifted date it gave the shift away ('Thanksgiving
#: 2018 (11/22/2018)' written back as 'Thanksgiving 2019 (3/22/2019)'), and scrambled alone it
#: was gibberish ('Chwguspxt'): it is written back as the word 'holiday'.
_HOLIDAY = (r"(?P<hol>new[ \t]+year(?:['’]?s)?(?:[ \t]+(?:eve|day))?|christmas(?:[ \t]+(?:eve|day))?"
            r"|x-?mas(?:[ \t]+eve)?|thanksgiving(?:[ \t]+day)?|easter(?:[ \t]+(?:sunday|monday))?"
            r"|good[ \t]+friday|hallowe['’]?en|valentine['’]?s(?:[ \t]+day)?|independence[ \t]+day"
            r"|(?:fourth|4th)[ \t]+of[ \t]+july|memorial[ \t]+day|labou?r[ \t]+day"
            r"|veterans['’]?[ \t]+day|columbus[ \t]+day|presidents['’]?[ \t]+day"
            r"|(?:martin[ \t]+luther[ \t]+king(?:[ \t]+jr\.?)?|mlk)[ \t]+day|juneteenth"
            r"|mother['’]?s[ \t]+day|father['’]?s[ \t]+day|st\.?[ \t]+patrick['’]?s[ \t]+day"
            r"|hanukk?ah|chanukk?ah|passover|ramadan|eid[ \t]+al[- ](?:fitr|adha)|yom[ \t]+kippur"
            r"|rosh[ \t]+hashanah?|diwali|kwanzaa|boxing[ \t]+day|(?:lunar|chinese)[ \t]+new[ \t]+year)"
            r"(?![^\W_])")
_HOLIDAY_WORDS = re.compile(_B + _HOLIDAY, re.IGNORECASE)
#: A weekday or holiday written just before a date span (on its line, a comma or an opening
#: parenthesis at most between),
#: or just after it (a comma or parentheses at most around it: '3/14/2019 (Thursday)'; a
#: weekday there only written in full, since '3/14, sat up in chair' is no weekday): the span
#: grows to hold it, and it is shifted with the date.
_DATE_WORD_BEFORE = re.compile(_B + rf"(?:{_WDAY}|{_HOLIDAY}),?[ \t]*\(?[ \t]*\Z", re.IGNORECASE)
_DATE_WORD_AFTER = re.compile(r"(?:[ \t]*,[ \t]*|[ \t]*\([ \t]*|[ \t]+)(?:(?P<wd>"
                              + "|".join(_WEEKDAYS) + rf")(?![^\W_])|{_HOLIDAY})(?:[ \t]*\))?",
                              re.IGNORECASE)
#: Shapes only read as a date when they are the whole span: a bare two-digit number is a year
#: (PhysioNet's DateYear "92" of "MI '92", the apostrophe outside the span), an ordinal a day
#: ('the 14th' too: read nowhere, its digits were drawn, 'the 92th').
_WHOLE_DATE_PATTERNS = (re.compile(r"(?P<y>\d{2})"),
                        re.compile(r"(?:the\s+)?(?P<d>\d{1,2})(?P<ord>st|nd|rd|th)", re.IGNORECASE))
#: Clock times beside a date are kept: they identify nothing once the date is shifted ("10:30",
#: "10:30:15", and four digits of a 24-hour clock that are no year alone: "0830", "2300").
_CLOCK = re.compile(r"(?<!\d)(\d{1,2}:\d{2}(?::\d{2})?|(?:[01]\d|2[0-3])[0-5]\d)(?!\d)")
#: Words a DATE or AGE span may hold beside its numbers, kept as written: month and weekday
#: names and their short forms, ordinal endings, and the words of dates and ages.
_DATE_AND_AGE_WORDS = frozenset(
    [m.casefold() for m in _MONTHS] + [m[:3].casefold() for m in _MONTHS] + ["sept"]
    + [d.casefold() for d in _WEEKDAYS] + [d[:3].casefold() for d in _WEEKDAYS]
    + "tues thur thurs st nd rd th of the and to through thru from on at in until since by am pm a m "
      "year years yr yrs y o yo yof yom old aged age ninety hundred day days week weeks month months "
      "ago about approx around early late mid s".split())
#: A pain score ('pain 7/10'), which the trees sometimes type DATE: N/10 with N from 0 to 10.
_PAIN_SCORE = re.compile(r"(?:10|\d)/10")
#: Words that make an N/10 near them a score, not a date, and how many words away they may stand
#: (before, after), on its line: pain ('cp 7/10' is chest pain) and the ventilator's pressure
#: support over PEEP ('PEEP/PS 5/10', 'CPAP 5/10').
_PAIN_WORDS = frozenset(("pain", "painful", "score", "scale", "rate", "rates", "rated", "rating",
                         "cp", "discomfort", "ache", "headache", "peep", "ps", "psv", "cpap", "bipap"))
_PAIN_REACH = (4, 2)
#: A word just before an N/10 that makes it a date whatever stands near ('pain since 3/10').
_DATE_BEFORE = frozenset(("on", "since", "until", "till", "by", "dated", "before", "after"))


def _pain_score(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]``, a DATE span, is a pain score: N/10 with a word of
    :data:`_PAIN_WORDS` up to four words before or two after it on its line, and no word of
    :data:`_DATE_BEFORE` just before it. Shifted, 'pain 7/10' became 'pain 5/11'; a score
    identifies no one. Narrow on purpose: every N/10 from 1/10 to 10/10 is also a date, and a
    date kept as written is PHI, so '1/10' without such words, and 'pain since 1/10', move."""
    if not _PAIN_SCORE.fullmatch(text[start:end]):
        return False
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    line_end = min((i for i in (text.find("\n", end), text.find("\r", end)) if i >= 0), default=len(text))
    before = [w.casefold() for w in re.findall(r"[^\W\d_]+", text[line_start:start])]
    after = [w.casefold() for w in re.findall(r"[^\W\d_]+", text[end:line_end])]
    if before and before[-1] in _DATE_BEFORE:
        return False
    reach_before, reach_after = _PAIN_REACH
    return any(w in _PAIN_WORDS for w in before[-reach_before:] + after[:reach_after])



#: Two-digit years below the pivot are 20xx, the others 19xx.
YEAR_PIVOT = 50
#: The year in which dates without a year are shifted: a common year between two common years,
#: as most years lie, so '3/7' moves as the '3/7/2019' of the same note does, forwards and
#: backwards (2001, the year after a leap year, moved 'Jan. 3' back over February 29 of 2000:
#: 'Feb. 15' beside 'Jan. 3, 2019' -> 'Feb. 14, 2018'); February 29 (and the check of whether
#: a day exists) in a leap year.
_NO_YEAR = 2002
_LEAP_NO_YEAR = 2000


def _index_of(token: str, names: tuple[str, ...]) -> int:
    """The index of the month or weekday whose first three letters start ``token``."""
    head = token[:3].casefold()
    return next(i for i, name in enumerate(names) if name[:3].casefold() == head)


def _name_like(original: str, names: tuple[str, ...], index: int, abbreviated: bool = False) -> str:
    """``names[index]`` written as ``original`` is: in full or as a 3-letter abbreviation
    ("May" counts as full unless the date's layout is ``abbreviated``: '05-MAY-10'), in its case."""
    full = original.casefold() in {name.casefold() for name in names} and not (
        abbreviated and len(original.rstrip(".")) == 3)
    return _case_like(original, names[index] if full else names[index][:3])


def _holiday_like(original: str) -> str:
    """The word 'holiday' in the case of the holiday ``original`` ('Christmas' -> 'Holiday')."""
    return ("HOLIDAY" if original.isupper() else "Holiday" if original[0].isupper()
            else "holiday")


def _ordinal(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _scrub(draw: _Draw, text: str) -> str:
    """Text beside a recognised date: clock times ("10:30") kept, other digits drawn."""
    return "".join(piece if index % 2 else _reshape(draw, piece, letters=False)
                   for index, piece in enumerate(_CLOCK.split(text)))


def _full_year(text: str) -> int:
    value = int(text)
    if len(text) == 2:
        return value + (2000 if value < YEAR_PIVOT else 1900)
    return value


def _valid(year: int, month: int, day: int) -> bool:
    try:
        _dt.date(year, month, day)
    except ValueError:
        return False
    return True


def _year_alone(year: int, offset: int) -> int:
    """The year a year written alone becomes: the year of its 2 July moved by ``offset`` days.

    Its day is unknown, and the patient's full dates of that year land in the year itself or
    the next (or the one before) in the share the offset gives; the middle day lands where most
    of them do. Moving every year alone by one year (as this did) disagreed with most of them
    when the offset is under half a year ('In 2020 ... 5/7/2019' for 'In 2019 ... 3/14/2019').
    To one who knows the real year, this tells whether the offset is over half a year (and then
    its sign); a single real full date tells the whole offset, so it reveals nothing new."""
    return (_dt.date(year, 7, 2) + _dt.timedelta(days=offset)).year


def _day_alone(day: int, offset: int) -> int:
    """The day a day of the month written alone ('the 14th') becomes: the day that this day of
    most months of the common year moves to by ``offset`` days, leaving out months where it
    lands on itself (a kept day tells that the offset is a whole number of months); between
    months as common, the earliest's. ``ValueError`` where no month has the day.

    Its month is unknown, and where a day lands depends on the lengths of the months the offset
    passes over. The day most months agree on agrees with the patient's dates of an unknown
    month ('March 14' beside 'the 14th', :data:`_NO_YEAR`) as often as one day can; shifted as
    a day of January (as this did), 'the 14th' disagreed with them wherever February lay
    between."""
    landed = [(_dt.date(_NO_YEAR, month, day) + _dt.timedelta(days=offset)).day
              for month in range(1, 13) if _valid(_NO_YEAR, month, day)]
    moved = [new for new in landed if new != day]
    return max(moved, key=moved.count)


def _shifted(month, day, year, offset: int, weekday: bool):
    """(new date or None, new year or None) for the parts read from a date: a full or partial
    date moved by ``offset`` days, a year alone by :func:`_year_alone`; None where the parts
    are no date."""
    try:
        if month is not None:
            base = _dt.date(year if year is not None else _LEAP_NO_YEAR if (month, day) == (2, 29)
                            else _NO_YEAR, month, day if day is not None else 15)
            new = base + _dt.timedelta(days=offset)
            return new, new.year
        if year is not None:
            return None, _year_alone(year, offset)
        if day is not None:   # a day alone ("the 11th"): only the new date's day is read
            return _dt.date(_NO_YEAR, 1, _day_alone(day, offset)), None
    except (ValueError, OverflowError):
        return None
    return (None, None) if weekday else None


def _shift_match(match: re.Match, offset: int) -> str | None:
    """The text of a date ``match`` shifted by ``offset`` days, each part written as the
    original wrote it; None where the parts are no valid date (another shape is tried)."""
    text_of = {name: value for name, value in match.groupdict().items() if value is not None}
    numeric_month, day_group, month_group = "m" in text_of, "d", "m"
    month = (_index_of(text_of["mon"], _MONTHS) + 1 if "mon" in text_of
             else int(text_of["m"]) if numeric_month else None)
    day = int(text_of["d"]) if "d" in text_of else None
    year = _full_year(text_of["y"]) if "y" in text_of else None
    check_year = year if year is not None else _LEAP_NO_YEAR
    if (numeric_month and day is not None and not _valid(check_year, month, day)
            and _valid(check_year, day, month) and match.start("m") < match.start("d")):
        month, day, day_group, month_group = day, month, "m", "d"   # day first: 25/12/2010
    shifted = _shifted(month, day, year, offset, "wd" in text_of)
    if shifted is None:
        return None
    new, new_year = shifted
    year_first = numeric_month and "y" in text_of and match.start("y") < match.start("m")
    padded = year_first or any(text_of[g].startswith("0") for g in ("m", "d") if g in text_of)
    parts, ends = {}, {}
    if "wd" in text_of:
        parts["wd"] = _name_like(text_of["wd"], _WEEKDAYS,
                                 (_index_of(text_of["wd"], _WEEKDAYS) + offset) % 7)
    if "mon" in text_of:
        # a month glued to its numbers ('05-MAY-10', '7MAY2019') is the 3-letter layout
        glued = any(c.isdigit() for c in match.group()) and not any(c.isspace() for c in match.group())
        parts["mon"] = _name_like(text_of["mon"], _MONTHS, new.month - 1, abbreviated=glued)
        if (parts["mon"].casefold() == "may" and text_of["mon"].casefold() != "may"
                and match.string[match.end("mon"):match.end("mon") + 1] == "."):
            ends["mon"] = match.end("mon") + 1     # 'Sept. 16' -> 'May 15', not 'May. 15'
    if numeric_month:
        parts[month_group] = f"{new.month:02d}" if padded else str(new.month)
    if day is not None:
        parts[day_group] = f"{new.day:02d}" if padded else str(new.day)
        if "ord" in text_of:
            parts["ord"] = _case_like(text_of["ord"], _ordinal(new.day))
    if "d2" in text_of:   # the range's last day, in the first day's month and year
        last = _shifted(month, int(text_of["d2"]), year, offset, False)
        if last is None or last[0] is None:
            return None
        parts["d2"] = str(last[0].day)
        if "ord2" in text_of:
            parts["ord2"] = _case_like(text_of["ord2"], _ordinal(last[0].day))
    if year is not None:
        parts["y"] = f"{new_year % 100:02d}" if len(text_of["y"]) == 2 else str(new_year)
    return _rewrite(match, parts, ends)


def _rewrite(match: re.Match, parts: dict[str, str], ends: dict[str, int] | None = None) -> str:
    """The matched text with the named groups replaced, everything between them kept; a part
    in ``ends`` replaces the text up to that offset instead of its group's end."""
    out, position = [], match.start()
    for name in sorted(parts, key=match.start):
        out += [match.string[position:match.start(name)], parts[name]]
        position = (ends or {}).get(name, match.end(name))
    out.append(match.string[position:match.end()])
    return "".join(out)


def _date_pieces(text: str, offset: int) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_date): recognised dates already shifted, the stretches
    between them as written, for the caller to scrub."""
    lead, core, trail = _split_space(text)
    for pattern in _WHOLE_DATE_PATTERNS:
        match = pattern.fullmatch(core)
        new = _shift_match(match, offset) if match else None
        if new is not None:
            return [(piece, is_date) for piece, is_date in
                    ((lead, False), (new, True), (trail, False)) if piece]
    pieces, position, last = [], 0, 0
    while position < len(text):
        for pattern in _DATE_PATTERNS:
            match = pattern.match(text, position)
            new = _shift_match(match, offset) if match else None
            if new is not None:
                pieces += [(text[last:position], False), (new, True)]
                position = last = match.end()
                break
        else:
            position += 1
    pieces.append((text[last:], False))
    return [(piece, is_date) for piece, is_date in pieces if piece]
