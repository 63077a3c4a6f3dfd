"""Keyed surrogates: consistency, shape of each class, date shifting, re-based spans."""
import datetime as dt
import re

import pytest

from itdeid.document import Document, Span
from itdeid.resources import load_table
from itdeid.render.surrogate import Surrogates

KEY = b"test-key-0123456789abcdef0123456"
LAST = {row[0] for row in load_table("gazetteers", "last_names.tsv")}
FIRST = {row[0] for row in load_table("gazetteers", "first_names.tsv")}

#: One original of each class and shape, for the properties every surrogate must have.
EXAMPLES = [
    ("PATIENT", "Smith, John"), ("PATIENT", "John Smith"), ("PATIENT", "J. Smith"),
    ("PATIENT", "SMITH"), ("PATIENT", "Smith"), ("DOCTOR", "Kay Z. Nosh, M.D."),
    ("HOSPITAL", "Massachusetts General Hospital"), ("HOSPITAL", "MGH"), ("HOSPITAL", "St. Mary's"),
    ("LOCATION", "Boston"), ("LOCATION", "Boston, MA 02115"), ("LOCATION", "12 Main St"),
    ("LOCATION", "MA"), ("ID", "123456789"), ("ID", "AB-12c"), ("PHONE", "(617) 555-1234"),
    ("AGE", "92"), ("AGE", "93 yo"), ("DATE", "03/07/2019"), ("DATE", "2010"), ("DATE", "'63"),
    ("DATE", "March"), ("DATE", "Monday"), ("DATE", "Christmas"), ("DATE", "7"),
]


def _shape(text):
    return re.sub(r"[a-z]", "a", re.sub(r"[A-Z]", "A", re.sub(r"\d", "9", text)))


@pytest.fixture
def surrogates():
    return Surrogates(KEY)


# --------------------------------------------------------------------------------------------
# Consistency and keying

def test_consistent_within_patient_and_across_instances(surrogates):
    worker = Surrogates(KEY)   # another process with the same key
    for cls, original in EXAMPLES:
        first = surrogates.surrogate("p1", cls, original)
        assert surrogates.surrogate("p1", cls, original) == first
        assert worker.surrogate("p1", cls, original) == first
    # Normalised: case and whitespace do not make another original.
    upper = surrogates.surrogate("p1", "ID", "AB-12c")
    assert surrogates.surrogate("p1", "ID", "ab-12c") == upper.lower()
    assert (surrogates.surrogate("p1", "PATIENT", "John  Smith")
            == surrogates.surrogate("p1", "PATIENT", "John Smith").replace(" ", "  "))


def test_other_patient_and_other_key_give_other_surrogates(surrogates):
    other_key = Surrogates(b"another-key")
    for cls, original in [("PATIENT", "John Smith"), ("ID", "123456789"),
                          ("DATE", "03/07/2019"), ("PHONE", "(617) 555-1234"),
                          ("HOSPITAL", "Massachusetts General Hospital")]:
        mine = surrogates.surrogate("p1", cls, original)
        assert surrogates.surrogate("p2", cls, original) != mine
        assert other_key.surrogate("p1", cls, original) != mine
    assert surrogates.date_offset("p1") != surrogates.date_offset("p2")


def test_key_is_required_and_not_shown():
    with pytest.raises(ValueError):
        Surrogates(b"")
    with pytest.raises(ValueError):
        Surrogates("text key")
    assert "test-key" not in repr(Surrogates(KEY))


def test_never_the_original(surrogates):
    for patient in ("p1", "p2", "p3", "p4"):
        for cls, original in EXAMPLES:
            if cls == "DATE" and re.fullmatch(r"'?\d{2}|\d{4}", original):
                continue    # a year alone moves with its year's dates, and they may stay in it
            new = surrogates.surrogate(patient, cls, original)
            assert new.casefold() != original.casefold(), (patient, cls, original)


def test_unknown_class_is_refused(surrogates):
    with pytest.raises(ValueError):
        surrogates.surrogate("p1", "EMAIL", "a@b.c")


# --------------------------------------------------------------------------------------------
# Names

def test_name_shapes_and_part_consistency(surrogates):
    last = surrogates.surrogate("p1", "PATIENT", "Smith")
    first = surrogates.surrogate("p1", "PATIENT", "John")
    assert last in LAST and first in FIRST
    assert surrogates.surrogate("p1", "PATIENT", "John Smith") == f"{first} {last}"
    assert surrogates.surrogate("p1", "PATIENT", "Smith, John") == f"{last}, {first}"
    upper = f"{last.upper()} , {first.upper()}"
    assert surrogates.surrogate("p1", "PATIENT", "SMITH , JOHN") == upper
    assert surrogates.surrogate("p1", "PATIENT", "SMITH") == last.upper()
    assert surrogates.surrogate("p1", "PATIENT", "Mr. Smith") == f"Mr. {last}"
    initial = surrogates.surrogate("p1", "PATIENT", "J. Smith")
    assert re.fullmatch(rf"[A-Z]\. {last}", initial) and not initial.startswith("J")
    # Titles and degrees are kept; the middle initial is drawn.
    doctor = surrogates.surrogate("p1", "DOCTOR", "Kay Z. Nosh, M.D.")
    assert re.fullmatch(r"[A-Z][a-z]+ [A-Z]\. [A-Z][A-Za-z']+, M\.D\.", doctor)
    # one draw for both name classes: the same name string is one stand-in however it is typed
    assert surrogates.surrogate("p1", "DOCTOR", "Smith") == last
    assert surrogates.surrogate("p1", "DOCTOR", "Dr. John Smith") == f"Dr. {first} {last}"
    # A degree that is also a surname is kept only after a comma.
    assert surrogates.surrogate("p1", "DOCTOR", "John Smith, DO").endswith(", DO")
    assert "Do" not in surrogates.surrogate("p1", "DOCTOR", "Linh Do").split()
    hyphenated = surrogates.surrogate("p1", "PATIENT", "Smith-Jones, Mary")
    assert hyphenated.startswith(f"{last}-{surrogates.surrogate('p1', 'PATIENT', 'Jones')}, ")


def test_first_name_keeps_sex(surrogates):
    female = {row[0] for row in load_table("gazetteers", "first_names.tsv") if row[1] == "F"}
    for patient in ("p1", "p2", "p3"):
        assert surrogates.surrogate(patient, "PATIENT", "Mary Jones").split()[0] in female


# --------------------------------------------------------------------------------------------
# Places, IDs, ages

def test_hospital_keeps_suffix(surrogates):
    assert surrogates.surrogate("p1", "HOSPITAL", "Massachusetts General Hospital").endswith(
        " General Hospital")
    assert surrogates.surrogate("p1", "HOSPITAL", "Cedar Clinic").endswith(" Clinic")
    assert surrogates.surrogate("p1", "HOSPITAL", "St. Mary's").endswith(" Hospital")
    assert re.fullmatch(r"[A-Z]{3}", surrogates.surrogate("p1", "HOSPITAL", "MGH"))
    assert surrogates.surrogate("p1", "HOSPITAL", "CEDAR CLINIC").isupper()


def test_location_shapes(surrogates):
    assert re.fullmatch(r"[A-Z]{2}", surrogates.surrogate("p1", "LOCATION", "MA"))
    assert re.fullmatch(r"\d{5}", surrogates.surrogate("p1", "LOCATION", "02115"))
    street = surrogates.surrogate("p1", "LOCATION", "12 Main St")
    assert re.fullmatch(r"[1-9]\d [A-Z][A-Za-z' ]+ St", street) and "Main" not in street
    city = surrogates.surrogate("p1", "LOCATION", "Boston")
    state = surrogates.surrogate("p1", "LOCATION", "MA")
    zip_code = surrogates.surrogate("p1", "LOCATION", "02115")
    # Parts are drawn one by one, so they agree with the parts alone.
    whole = surrogates.surrogate("p1", "LOCATION", "Boston, MA 02115")
    assert whole == f"{city}, {state} {zip_code}"


def test_two_capitals_of_a_place_are_a_state_only_when_they_were_one(surrogates):
    """'GH' (a hospital's initials, typed LOCATION in PhysioNet's gold) once became a state
    ('to GH' -> 'to OR', 'to IN'): a stand-in of another kind, in the output and in the
    re-substituted training copies; a state abbreviation still becomes another state."""
    from itdeid.render.surrogate_words import _words
    states = set(_words().state_abbrs)
    for patient in (f"p{i}" for i in range(40)):
        new = surrogates.surrogate(patient, "LOCATION", "GH")
        assert re.fullmatch(r"[A-Z]{2}", new) and new != "GH" and new not in states
        assert surrogates.surrogate(patient, "LOCATION", "MD") in states


def test_a_place_that_is_a_hospital_gets_a_hospitals_stand_in(surrogates):
    """PhysioNet's gold types hospitals LOCATION ('GLENHOLT MEMORIAL'): they became US cities
    ('admitted from Meadow Woods'). A place ending in a hospital's word gets the stand-in the
    same name typed HOSPITAL gets, its ending kept; other places stay places."""
    from itdeid.render.surrogate_words import _words
    cities = set(_words().cities)
    for patient in (f"p{i}" for i in range(20)):
        for original, ending in (("GLENHOLT MEMORIAL", " MEMORIAL"), ("Corvale Hospital", " Hospital"),
                                 ("Mercy Medical Center", " Medical Center")):
            new = surrogates.surrogate(patient, "LOCATION", original)
            assert new == surrogates.surrogate(patient, "HOSPITAL", original)
            assert new.endswith(ending) and new != original
        assert surrogates.surrogate(patient, "LOCATION", "Boston") in cities
        assert surrogates.surrogate(patient, "LOCATION", "Centreville") in cities


def test_id_and_phone_keep_shape(surrogates):
    for cls, original in [("ID", "123456789"), ("ID", "AB-12c"), ("ID", "7"),
                          ("PHONE", "(617) 555-1234"), ("PHONE", "617.555.1234 x22")]:
        new = surrogates.surrogate("p1", cls, original)
        assert _shape(new) == _shape(original) and new != original


def test_age_stays_at_least_90(surrogates):
    for original in ("90", "92", "99", "104", "93 yo", "ninety-one"):
        for patient in ("p1", "p2"):
            new = surrogates.surrogate(patient, "AGE", original)
            numbers = [int(n) for n in re.findall(r"\d+", new)]
            assert numbers and all(90 <= n <= 99 for n in numbers) and new != original
    assert surrogates.surrogate("p1", "AGE", "93 yo").endswith(" yo")


def test_age_under_90_is_kept(surrogates):
    """Safe Harbor lets ages under 90 stand, and research text needs them."""
    for original in ("45", "72 yo", "89-year-old"):
        assert surrogates.surrogate("p1", "AGE", original) == original


# --------------------------------------------------------------------------------------------
# Dates

DATE_FORMATS = [
    ("03/07/2019", "%m/%d/%Y", r"\d\d/\d\d/\d{4}"),
    ("3/24/2019", "%m/%d/%Y", r"\d{1,2}/\d{1,2}/\d{4}"),
    ("03/07/19", "%m/%d/%y", r"\d\d/\d\d/\d\d"),
    ("2019-03-07", "%Y-%m-%d", r"\d{4}-\d\d-\d\d"),
    ("03-07-2019", "%m-%d-%Y", r"\d\d-\d\d-\d{4}"),
    ("20190307", "%Y%m%d", r"\d{8}"),
    ("January 5, 2010", "%B %d, %Y", r"[A-Z][a-z]+ \d{1,2}, \d{4}"),
    ("5 Jan 2010", "%d %b %Y", r"\d{1,2} [A-Z][a-z]{2} \d{4}"),
    ("10-Feb-2011", "%d-%b-%Y", r"\d{1,2}-[A-Z][a-z]{2}-\d{4}"),
    ("05-JAN-10", "%d-%b-%y", r"\d\d-[A-Z]{3}-\d\d"),
]


def test_dates_shift_by_the_patient_offset_in_their_format(surrogates):
    for patient in ("p1", "p2", "p3"):
        offset = dt.timedelta(days=surrogates.date_offset(patient))
        assert 30 <= abs(offset.days) <= 330 and offset.days % 7
        for original, fmt, shape in DATE_FORMATS:
            new = surrogates.surrogate(patient, "DATE", original)
            assert re.fullmatch(shape, new), (original, new)
            before = dt.datetime.strptime(original, fmt)
            assert dt.datetime.strptime(new.title(), fmt) - before == offset, (original, new)


def _suffix(day):
    return "th" if 10 <= day <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def _day_alone(day, offset):
    """Where ``day`` of most months of a common year lands, leaving out those it lands on
    itself; between months as common, the earliest's."""
    landed = [(dt.date(2002, m, day) + offset).day for m in range(1, 13)
              if day <= (dt.date(2002 + m // 12, m % 12 + 1, 1) - dt.timedelta(days=1)).day]
    moved = [new for new in landed if new != day]
    return max(moved, key=moved.count)


def _mdy(text):
    return dt.datetime.strptime(text, "%m/%d/%Y")


def test_date_interval_survives(surrogates):
    for patient in ("p1", "p2"):
        first = surrogates.surrogate(patient, "DATE", "03/07/2019")
        second = surrogates.surrogate(patient, "DATE", "03/24/2019")
        assert (_mdy(second) - _mdy(first)).days == 17
        assert re.fullmatch(r"\d\d/\d\d/\d{4}", first)   # zero padding kept


def test_partial_dates(surrogates):
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    step = (dt.date(2010, 7, 2) + offset).year - 2010      # p1's offset: over half a year
    assert step
    assert surrogates.surrogate("p1", "DATE", "2010") == str(2010 + step)
    assert surrogates.surrogate("p1", "DATE", "'63") == f"'{63 + step:02d}"
    assert surrogates.surrogate("p1", "DATE", "1999") == str(1999 + step)
    assert surrogates.surrogate("p1", "DATE", "92") == f"{92 + step}"   # PhysioNet DateYear
    day = _day_alone(11, offset)
    assert surrogates.surrogate("p1", "DATE", "11th") == f"{day}{_suffix(day)}"   # a day alone
    moved = dt.date(2001, 3, 5) + offset   # a common year, as most are
    assert surrogates.surrogate("p1", "DATE", "Mar 5") == f"{moved:%b} {moved.day}"
    assert surrogates.surrogate("p1", "DATE", "3/5") == f"{moved.month}/{moved.day}"
    ordinal = surrogates.surrogate("p1", "DATE", "5th of March")
    assert re.fullmatch(rf"{moved.day}(st|nd|rd|th) of {moved:%B}", ordinal)
    month = dt.date(2010, 3, 15) + offset
    assert surrogates.surrogate("p1", "DATE", "3/2010") == f"{month.month}/{month.year}"
    assert surrogates.surrogate("p1", "DATE", "March 2010") == f"{month:%B} {month.year}"
    weekday = dt.date(2019, 3, 4) + offset    # a Monday
    assert surrogates.surrogate("p1", "DATE", "Monday") == f"{weekday:%A}"
    month_alone = dt.date(2001, 3, 15) + offset
    assert surrogates.surrogate("p1", "DATE", "MARCH") == f"{month_alone:%B}".upper()
    leap = dt.date(2000, 2, 29) + offset
    assert surrogates.surrogate("p1", "DATE", "2/29") == f"{leap.month}/{leap.day}"


def test_a_year_alone_moves_into_the_year_most_of_its_dates_move_into(surrogates):
    """'In 2019 ... 3/14/2019' came out 'In 2020 ... 5/7/2019': a year alone moved one year
    whatever the offset, so for an offset under half a year it disagreed with most full dates
    of that year."""
    for patient in ("p1", "p2", "p3", "p4"):            # offsets 194, 265, -204, 54 days
        offset = dt.timedelta(days=surrogates.date_offset(patient))
        for year in (1999, 2019, 2020):
            days = (dt.date(year + 1, 1, 1) - dt.date(year, 1, 1)).days
            moved = [(dt.date(year, 1, 1) + dt.timedelta(days=k) + offset).year for k in range(days)]
            most = max(set(moved), key=moved.count)
            assert surrogates.surrogate(patient, "DATE", str(year)) == str(most), (patient, year)
            assert surrogates.surrogate(patient, "DATE", f"'{year % 100:02d}") == f"'{most % 100:02d}"
    text = "In 2019 she fell; seen 3/14/2019."
    spans = [Span(3, 7, "DATE"), Span(23, 32, "DATE")]
    new, (year, date) = surrogates.replace(Document("d", text, [], patient="p4"), spans)
    assert new[year.start:year.end] == new[date.end - 4:date.end] == "2019"   # 54 days later


def test_a_day_alone_moves_as_that_day_of_most_months_does(surrogates):
    """'the 14th' was shifted as a day of January, so it disagreed with the 'March 14' of the
    same patient wherever February lay between (and with 'the' in its span it was not read at
    all: 'the 92th')."""
    for patient in ("p1", "p2", "p3", "p4"):
        offset = dt.timedelta(days=surrogates.date_offset(patient))
        for day in (1, 14, 28, 30, 31):
            new = _day_alone(day, offset)
            assert surrogates.surrogate(patient, "DATE", f"{day}{_suffix(day)}") == f"{new}{_suffix(new)}"
            assert surrogates.surrogate(patient, "DATE", f"The {day}{_suffix(day)}") == f"The {new}{_suffix(new)}"
    offset = dt.timedelta(days=surrogates.date_offset("p4"))     # 54 days: 14 -> 7 in 9 months of 12
    march = dt.date(2002, 3, 14) + offset
    assert surrogates.surrogate("p4", "DATE", "the 14th") == f"the {march.day}th"
    assert surrogates.surrogate("p4", "DATE", "March 14") == f"{march:%B} {march.day}"
    assert surrogates.unparsed_dates == 0


def test_a_date_without_a_year_moves_as_in_a_common_year_both_ways(surrogates):
    """Shifted back from 2001, the year after a leap year, 'Jan. 3' crossed February 29 of 2000
    and landed a day off the 'Jan. 3, 2019' of the same patient ('Feb. 15' beside 'Feb. 14,
    2018'): intervals between a note's dates must survive."""
    patients = [f"p{k}" for k in range(400)]
    offsets = {p: surrogates.date_offset(p) for p in patients}
    # a January date moved back more than 308 days crossed February 29 of 2000
    assert min(offsets.values()) < -308 and max(offsets.values()) > 60
    for patient, days in offsets.items():
        for month in range(1, 13):
            full = dt.date(2018, month, 3) + dt.timedelta(days=days)   # 2017-2019: common years
            assert surrogates.surrogate(patient, "DATE", f"{month}/3") == f"{full.month}/{full.day}", (patient, month)


def test_an_abbreviated_month_that_becomes_may_loses_its_period(surrogates):
    """'Sept. 16' came out 'May. 15'; May has no abbreviation to end with a period."""
    for patient in (f"p{k}" for k in range(200)):
        new = dt.date(2018, 9, 16) + dt.timedelta(days=surrogates.date_offset(patient))
        if new.month == 5:
            assert surrogates.surrogate(patient, "DATE", "Sept. 16") == f"May {new.day}"
            assert surrogates.surrogate(patient, "DATE", "SEP. 16, 2018") == f"MAY {new.day}, {new.year}"
            break
    else:
        pytest.fail("no patient's offset moves September to May")


def test_dates_with_and_without_a_year_clock_times_and_may(surrogates):
    """'3/7' moves as '3/7/2019' does; clock times beside a date (or alone) are kept; 'MAY'
    glued to its numbers is the three-letter layout."""
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    for year in (2017, 2018, 2019):
        full = dt.date(year, 3, 7) + offset
        assert surrogates.surrogate("p1", "DATE", f"3/7/{year}") == f"{full.month}/{full.day}/{full.year}"
        assert surrogates.surrogate("p1", "DATE", "3/7") == f"{full.month}/{full.day}"
    new = dt.date(2019, 3, 7) + offset
    assert surrogates.surrogate("p1", "DATE", "3/7/2019 0830") == f"{new.month}/{new.day}/{new.year} 0830"
    assert surrogates.surrogate("p1", "DATE", "3/7/2019 @ 2300") == f"{new.month}/{new.day}/{new.year} @ 2300"
    assert surrogates.surrogate("p1", "DATE", "1430") == "1430"
    may = dt.date(2010, 5, 5) + offset
    assert surrogates.surrogate("p1", "DATE", "05-MAY-10") == f"{may:%d-%b-%y}".upper()
    assert surrogates.surrogate("p1", "DATE", "May 5, 2010") == f"{may:%B} {may.day}, {may.year}"


def test_unparsed_dates_are_replaced_and_counted(surrogates):
    assert surrogates.unparsed_dates == 0
    for original in ("1990s", "Spring break", "the 3rd week"):
        new = surrogates.surrogate("p1", "DATE", original)
        assert _shape(new) == _shape(original) and new != original
        if re.search(r"\d", original):
            assert re.sub(r"\D", "", new) != re.sub(r"\D", "", original)
    assert surrogates.unparsed_dates == 3
    assert surrogates.surrogate("p1", "DATE", "Christmas") == "Holiday"    # a date in a word
    # A clock time beside a date is kept; other leftover digits are drawn and counted.
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    moved = dt.date(2019, 3, 7) + offset
    written = f"{moved.month}/{moved.day}/{moved.year}"
    assert surrogates.surrogate("p1", "DATE", "3/7/2019 10:30") == f"{written} 10:30"
    assert surrogates.unparsed_dates == 3
    assert surrogates.surrogate("p1", "DATE", "3/7/2019 #4").startswith(f"{written} #")
    assert surrogates.unparsed_dates == 4


# --------------------------------------------------------------------------------------------
# Whole documents

def _doc():
    text = ("Patient: SMITH , JOHN  MRN 12345678\n"
            "Seen 03/07/2019 by Dr. Kay Nosh at Cedar Clinic.\n"
            "Mr. Smith, 92 yo, from Boston, returns 03/24/2019. Call (617) 555-1234.\n")
    pieces = [("SMITH , JOHN", "PATIENT"), ("12345678", "ID"), ("03/07/2019", "DATE"),
              ("Kay Nosh", "DOCTOR"), ("Cedar Clinic", "HOSPITAL"), ("Smith", "PATIENT"),
              ("92", "AGE"), ("Boston", "LOCATION"), ("03/24/2019", "DATE"),
              ("(617) 555-1234", "PHONE")]
    spans, position = [], 0
    for piece, cls in pieces:
        start = text.index(piece, position)
        spans.append(Span(start, start + len(piece), cls))
        position = start + len(piece)
    return Document("note1", text, [], patient="p7"), spans


def test_replace_rebases_spans(surrogates):
    doc, spans = _doc()
    text, new_spans = surrogates.replace(doc, list(reversed(spans)))   # any order in
    assert [s.type for s in new_spans] == [s.type for s in spans]
    for old, new in zip(spans, new_spans):
        original = doc.text[old.start:old.end]
        assert text[new.start:new.end] == surrogates.surrogate("p7", old.type, original)
        assert text[new.start:new.end] != original
    # The text between spans is untouched.
    gaps = lambda t, ss: [t[a.end:b.start] for a, b in zip(ss, ss[1:])]
    assert gaps(text, new_spans) == gaps(doc.text, spans)
    Document(doc.id, text, new_spans).check_spans()
    # One patient across notes: "Smith" in the second sentence is the SMITH of the header.
    header = text[new_spans[0].start:new_spans[0].end]
    assert header.split(" , ")[0] == text[new_spans[5].start:new_spans[5].end].upper()


def test_replace_uses_document_id_without_patient(surrogates):
    doc, spans = _doc()
    doc.patient = None
    text, new_spans = surrogates.replace(doc, spans)
    mrn = text[new_spans[1].start:new_spans[1].end]
    assert mrn == surrogates.surrogate("note1", "ID", "12345678")


def test_replace_refuses_overlapping_spans(surrogates):
    doc, spans = _doc()
    with pytest.raises(ValueError, match="overlap"):
        surrogates.replace(doc, spans + [Span(spans[0].start + 1, spans[0].end + 2, "ID")])


def test_a_range_of_days_shifts_both_days(surrogates):
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    first, last = dt.date(2019, 3, 7) + offset, dt.date(2019, 3, 9) + offset
    assert surrogates.surrogate("p1", "DATE", "March 7-9, 2019") == f"{first:%B} {first.day}-{last.day}, {first.year}"
    first, last = dt.date(2001, 1, 5) + offset, dt.date(2001, 1, 9) + offset
    assert surrogates.surrogate("p1", "DATE", "Jan 5 through 9") == f"{first:%b} {first.day} through {last.day}"
    # written with numbers: '3/14-16/2019' came out as '9/14-71/2018' (the last day drawn as digits)
    first, last = dt.date(2019, 3, 14) + offset, dt.date(2019, 3, 16) + offset
    assert surrogates.surrogate("p1", "DATE", "3/14-16/2019") == f"{first.month}/{first.day}-{last.day}/{first.year}"
    first, last = dt.date(2001, 3, 14) + offset, dt.date(2001, 3, 16) + offset
    assert surrogates.surrogate("p1", "DATE", "3/14 - 16") == f"{first.month}/{first.day} - {last.day}"


def test_spans_with_nothing_to_replace_are_kept(surrogates):
    """Punctuation, whitespace, a title alone, ages under 90 in words and decades identify no one."""
    for cls, text in (("HOSPITAL", " "), ("LOCATION", "."), ("PATIENT", ""), ("PATIENT", "Dr."),
                      ("DOCTOR", "MD"), ("AGE", "eighty"), ("AGE", "in her 90s"), ("AGE", "")):
        assert surrogates.surrogate("p1", cls, text) == text
    assert re.fullmatch(r"9\d", surrogates.surrogate("p1", "AGE", "ninety-three"))


def test_an_identifier_gets_one_stand_in_whatever_surrounds_it(surrogates):
    bare = surrogates.surrogate("p1", "ID", "4417392")
    assert re.fullmatch(r"\d{7}", bare) and bare != "4417392"
    assert surrogates.surrogate("p1", "ID", "4417392.") == bare + "."
    assert surrogates.surrogate("p1", "ID", "#4417392") == "#" + bare
    assert surrogates.surrogate("p1", "ID", "MRN 4417392") == "MRN " + bare
    assert re.fullmatch(r"x\d{4}", surrogates.surrogate("p1", "PHONE", "x1234"))
    assert re.fullmatch(r"[A-Z]{3}\d{7}", surrogates.surrogate("p1", "ID", "BKF7166537"))


def test_an_email_or_web_address_keeps_its_form_whatever_its_class(surrogates):
    for cls in ("ID", "PATIENT", "LOCATION", "HOSPITAL"):
        email = surrogates.surrogate("p1", cls, "jsmith@partners.org")
        assert re.fullmatch(r"[a-z]{6}@[a-z]{8}\.org", email) and email != "jsmith@partners.org"
        assert re.fullmatch(r"[a-z]{5}\.com", surrogates.surrogate("p1", cls, "gmail.com"))
    url = surrogates.surrogate("p1", "ID", "https://www.example.com/u/8812")
    assert re.fullmatch(r"https://www\.[a-z]{7}\.com/[a-z]/\d{4}", url) and "example" not in url


def test_weekday_with_its_day_and_two_digit_years_after_a_month(surrogates):
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    day = _day_alone(7, offset)
    weekday = dt.date(2019, 3, 5) + offset      # a Tuesday
    assert surrogates.surrogate("p1", "DATE", "Tuesday the 7th") == f"{weekday:%A} the {day}{_suffix(day)}"
    month = dt.date(1999, 12, 15) + offset
    assert surrogates.surrogate("p1", "DATE", "Dec 99") == f"{month:%b} {month:%y}"
    new = dt.date(1999, 12, 31) + offset
    assert surrogates.surrogate("p1", "DATE", "Dec 31 99") == f"{new:%b} {new.day} {new:%y}"
    assert surrogates.surrogate("p1", "DATE", "Jan 5 10:30").endswith(" 10:30")


def test_iso_shapes_year_first_dates_particles_and_lone_surrogates(surrogates):
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    new = dt.date(2019, 3, 7) + offset
    assert surrogates.surrogate("p1", "DATE", "2019-03-07T10:30:00") == f"{new:%Y-%m-%d}T10:30:00"
    assert surrogates.surrogate("p1", "DATE", "2019 March 7") == f"{new.year} {new:%B} {new.day}"
    month = dt.date(2019, 3, 15) + offset
    assert surrogates.surrogate("p1", "DATE", "2019-03") == f"{month:%Y-%m}"
    name = surrogates.surrogate("p1", "PATIENT", "van der Berg")
    assert name.startswith("van der ") and not name.endswith("Berg")
    assert surrogates.surrogate("p1", "PATIENT", "\ud800x")      # no UnicodeEncodeError


def test_location_parts_keep_their_form(surrogates):
    full, short = (surrogates.surrogate("p1", "LOCATION", t) for t in ("12 Main Street", "12 Main St"))
    assert full.split()[:2] == short.split()[:2]            # one number and name however written
    assert re.fullmatch(r"\d{2} [A-Z][a-z]+ Street Apt \d", surrogates.surrogate("p1", "LOCATION", "12 Main Street Apt 3"))
    assert re.fullmatch(r"P\.O\. Box \d{3}", surrogates.surrogate("p1", "LOCATION", "P.O. Box 123"))
    assert re.fullmatch(r"Route \d", surrogates.surrogate("p1", "LOCATION", "Route 9"))
    assert re.fullmatch(r"[a-z ]+, [a-z]{2}", surrogates.surrogate("p1", "LOCATION", "boston, ma"))
    assert surrogates.surrogate("p1", "LOCATION", "USA") == "USA"
    assert re.fullmatch(r"\d{2} [A-Z][a-z]+ St [A-Z][A-Za-z .'-]+ [A-Z]{2} \d{5}",
                        surrogates.surrogate("p1", "LOCATION", "12 Main St Boston MA 02115"))


def test_a_header_order_name_keeps_its_parts(surrogates):
    """'SMITH JOHN' (last name first, no comma) gets the stand-ins 'John Smith' gets, in its order."""
    first, last = surrogates.surrogate("p1", "PATIENT", "John Smith").split()
    assert surrogates.surrogate("p1", "PATIENT", "Smith John") == f"{last} {first}"


def test_a_name_inside_a_date_or_age_span_is_replaced_as_a_name():
    """The trees sometimes type a name and the date after it as one DATE span; its surrogate
    shifted the date and kept the name ('Name: John Smith 07/03/2018')."""
    surrogates = Surrogates(b"k" * 32)
    date = surrogates.surrogate("p", "DATE", "John Smith 03/14/2019")
    age = surrogates.surrogate("p", "AGE", "Smith 92")
    assert "John" not in date and "Smith" not in date and "Smith" not in age
    smith = surrogates.surrogate("p", "PATIENT", "Smith")
    assert date.split()[1] == smith and age.split()[0] == smith          # one draw for the name
    assert surrogates.surrogate("p", "DATE", "Tuesday, March 14th, 2019").startswith(("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"))
    assert surrogates.surrogate("p", "AGE", "92 yo").endswith(" yo")
    assert surrogates.surrogate("p", "DATE", "admitted 3/14").startswith("admitted ")


def test_a_weekday_beside_a_date_moves_with_it():
    """'Seen Monday 3/4/2019' with the date alone tagged kept 'Monday' beside the shifted date,
    telling the real date's weekday (and so the shift mod 7); with the weekday inside the span,
    'Monday 3/4/2019' was read as 'Monday 3' and came out '15/5/2018'."""
    surrogates = Surrogates(b"k" * 32)
    text = "Seen Monday 3/4/2019. Follow-up Friday, 3/8/2019 at 10:30. Sunday walk 3/9."
    spans = [Span(text.index(d), text.index(d) + len(d), "DATE") for d in ("3/4/2019", "3/8/2019", "3/9")]
    new, _ = surrogates.replace(Document("d", text, patient="p1"), spans)
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    first, second = dt.date(2019, 3, 4) + offset, dt.date(2019, 3, 8) + offset
    assert new.startswith(f"Seen {first:%A} {first.month}/{first.day}/{first.year}. Follow-up "
                          f"{second:%A}, {second.month}/{second.day}/{second.year} at 10:30. ")
    assert "Sunday walk" in new                         # a word apart: not the date's weekday
    assert surrogates.surrogate("p1", "DATE", "Mon 2019-03-04") == f"{first:%a} {first:%Y-%m-%d}"


def test_a_possessive_is_the_same_person_as_the_bare_name():
    """'Dr. Okonkwo's fellow' drew another name than 'Dr. Okonkwo', "John's" another than
    'John', and a lone "'s" tagged apart became "'t"."""
    surrogates = Surrogates(b"k" * 32)
    for name in ("Okonkwo", "John", "O\u2019Neil"):
        bare = surrogates.surrogate("p1", "PATIENT", name)
        for ending in ("'s", "\u2019s"):
            assert surrogates.surrogate("p1", "DOCTOR", name + ending) == bare + ending
    assert surrogates.surrogate("p1", "PATIENT", "OKONKWO'S") == surrogates.surrogate(
        "p1", "PATIENT", "OKONKWO") + "'S"
    assert surrogates.surrogate("p1", "DOCTOR", "'s") == "'s"


def test_a_hospital_named_for_whom_it_serves_keeps_no_word_of_its_name():
    """'Brigham and Women's Hospital' became 'Christian Women's Hospital'."""
    surrogates = Surrogates(b"k" * 32)
    for name in ("Brigham and Women's Hospital", "Boston Children's Hospital"):
        new = surrogates.surrogate("p1", "HOSPITAL", name)
        assert new.endswith("Hospital") and "Women" not in new and "Children" not in new, new


def test_a_hospital_or_place_stand_in_is_written_in_the_case_of_each_part(surrogates):
    """'MERCY Hospital' came out 'Christian Hospital': the stand-in took the word list's case
    unless the whole span was in one case. Its name follows the original's name, its suffix is
    kept as written."""
    title = surrogates.surrogate("p1", "HOSPITAL", "Mercy Hospital")
    name = title[:-len(" Hospital")]
    assert surrogates.surrogate("p1", "HOSPITAL", "MERCY HOSPITAL") == f"{name.upper()} HOSPITAL"
    assert surrogates.surrogate("p1", "HOSPITAL", "MERCY Hospital") == f"{name.upper()} Hospital"
    assert surrogates.surrogate("p1", "HOSPITAL", "Mercy HOSPITAL") == f"{name} HOSPITAL"
    assert surrogates.surrogate("p1", "HOSPITAL", "mercy Hospital") == f"{name.lower()} Hospital"
    assert surrogates.surrogate("p1", "HOSPITAL", "mercy hospital") == f"{name.lower()} hospital"
    assert surrogates.surrogate("p1", "HOSPITAL", "HOSPITAL").isupper()
    for original in ("SPRINGFIELD, MA 01101", "12 MAIN ST", "GERMANY"):
        assert surrogates.surrogate("p1", "LOCATION", original).isupper(), original


def test_one_word_in_other_forms_gets_one_stand_in(surrogates):
    """'Mercy Hospital', 'MERCY' and 'Mercy Hosp' drew three stand-ins (an all-capital word of up
    to six letters was read as an abbreviation, 'Hosp' was no suffix), and 'Jordan' one as a
    first name and another as a last name."""
    for patient in ("p1", "p2", "p3"):
        name = surrogates.surrogate(patient, "HOSPITAL", "Mercy Hospital")[:-len(" Hospital")]
        for original, new in [("MERCY", f"{name.upper()} HOSPITAL"), ("mercy", f"{name.lower()} hospital"),
                              ("Mercy Hosp", f"{name} Hosp"), ("MERCY HOSP.", f"{name.upper()} HOSP."),
                              ("Mercy Med. Ctr.", f"{name} Med. Ctr.")]:
            assert surrogates.surrogate(patient, "HOSPITAL", original) == new, (patient, original)
        assert re.fullmatch(r"[A-Z]{3}", surrogates.surrogate(patient, "HOSPITAL", "MGH"))
        assert re.fullmatch(r"[A-Z]{5}", surrogates.surrogate(patient, "HOSPITAL", "BIDMC"))
        jordan = surrogates.surrogate(patient, "PATIENT", "Jordan")
        assert jordan in FIRST and jordan in LAST
        assert surrogates.surrogate(patient, "PATIENT", "Jordan Smith").split()[0] == jordan
        assert surrogates.surrogate(patient, "DOCTOR", "Dr. Mike Jordan").split()[-1] == jordan
        assert surrogates.surrogate(patient, "PATIENT", "JORDAN, JOHN").split(",")[0] == jordan.upper()


def test_a_pain_score_typed_date_is_kept(surrogates):
    """'Pain 7/10' with '7/10' typed DATE came out 'Pain 5/11': a pain score identifies no one,
    and shifted it ruined the text. N/10 near 'pain' (or 'rates', 'score', 'scale') is kept;
    elsewhere, or after 'on' or 'since', it is a date (January 10)."""
    lines = ["Pain 7/10 at rest.", "She rates her pain as 3/10 today.", "10/10 abdominal pain.",
             "Pain score: 0/10.", "On a 0-10 scale, 6/10.", "Pain improved from 8/10 to 4/10.",
             "c/o cp 7/10, ntg x1.", "Vent: PEEP/PS 5/10, FiO2 40%.", "CPAP 5/10 overnight."]
    text = "\n".join(lines) + "\n"
    scores = [m for m in re.finditer(r"\b(?:10|\d)/10\b", text)]
    spans = [Span(m.start(), m.end(), "DATE") for m in scores]
    new, new_spans = surrogates.replace(Document("d", text, [], patient="p1"), spans)
    assert new == text and [(s.start, s.end) for s in new_spans] == [(s.start, s.end) for s in spans]
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    january = dt.date(2001, 1, 10) + offset
    for text in ("Follow up 1/10.", "Pain since 1/10.", "Seen on 1/10 for pain.", "Pain clinic\n1/10"):
        start = text.index("1/10")
        new, _ = surrogates.replace(Document("d", text, [], patient="p1"), [Span(start, start + 4, "DATE")])
        assert f"{january.month}/{january.day}" in new, text


def test_a_holiday_or_weekday_beside_a_shifted_date_does_not_give_the_shift_away(surrogates):
    """'Thanksgiving 2018 (11/22/2018)' came out as 'Thanksgiving 2019 (3/22/2019)', and
    '3/14/2019 (Thursday)' with the date alone tagged kept its weekday beside the shifted date:
    each told the shift (a weekday, the shift mod 7). A holiday is written 'holiday'; a weekday
    or holiday just before or after a tagged date joins its span and is shifted with it."""
    text = ("Admitted Thanksgiving 2018 (11/22/2018). Seen 3/14/2019 (Thursday), again "
            "3/18/2019, Monday, and on Christmas (12/25/2019). 3/20, sat up in chair.")
    spans = [Span(text.index(p), text.index(p) + len(p), "DATE")
             for p in ("Thanksgiving 2018 (11/22/2018)", "3/14/2019", "3/18/2019", "12/25/2019", "3/20")]
    new, new_spans = surrogates.replace(Document("d", text, [], patient="p1"), spans)
    offset = dt.timedelta(days=surrogates.date_offset("p1"))
    for span, day in zip(new_spans[1:3], (dt.date(2019, 3, 14), dt.date(2019, 3, 18))):
        moved = day + offset        # the weekdays were right, so they are the moved dates'
        assert new[span.start:span.end] in (f"{moved.month}/{moved.day}/{moved.year} ({moved:%A})",
                                            f"{moved.month}/{moved.day}/{moved.year}, {moved:%A}")
    assert not re.search(r"Thanksgiving|Christmas|Thursday|Monday", new)
    assert new.count("Holiday") == 2 and "sat up in chair" in new
    # a weekday ending the line before a date stays where it is, whatever the line ending (with
    # '\n' it joined a span across the line break; with '\r\n' it did not)
    for eol in ("\n", "\r\n"):
        text = f"Seen on Monday{eol}3/4/2003 by team."
        span = Span(text.index("3/4"), text.index("3/4") + 8, "DATE")
        new, (moved,) = surrogates.replace(Document("d", text, [], patient="p1"), [span])
        assert new.startswith(f"Seen on Monday{eol}") and eol not in new[moved.start:moved.end]


def test_initials_are_written_back_as_initials(surrogates):
    """'Note by JS' came out as 'Note by JIMENEZ': two or three capitals without a vowel are a
    person's initials, and get a drawn letter each, as 'J.' does."""
    for original in ("JS", "MW", "JRH"):
        new = surrogates.surrogate("p1", "DOCTOR", original)
        assert re.fullmatch(r"[A-Z]+", new) and len(new) == len(original) and new != original
    assert surrogates.surrogate("p1", "DOCTOR", "JS") == surrogates.surrogate("p1", "PATIENT", "JS")
    assert len(surrogates.surrogate("p1", "PATIENT", "LEE")) > 1        # a name with a vowel


def test_a_day_month_and_two_digit_year_moves_as_one_date(surrogates):
    """'14 Mar 19' came out as '25 Apr 08' (the '19' drawn as leftover digits) and '14/Mar/19'
    as '56/Apr/13'."""
    moved = dt.date(2019, 3, 14) + dt.timedelta(days=surrogates.date_offset("p1"))
    assert surrogates.surrogate("p1", "DATE", "14 Mar 19") == f"{moved.day} {moved:%b} {moved:%y}"
    assert surrogates.surrogate("p1", "DATE", "14/Mar/19") == f"{moved.day}/{moved:%b}/{moved:%y}"
    assert surrogates.surrogate("p1", "DATE", "14 Mar 19:30").endswith(" 19:30")   # a clock
    assert surrogates.unparsed_dates == 0


def test_ip_address_and_ssn_stand_ins_are_valid_ones(surrogates):
    """'192.168.1.20' was drawn as '796.767.9.81', and SSNs with a group '00' (never issued):
    a researcher's text held identifiers that cannot exist."""
    for k in range(300):
        ip = surrogates.surrogate(f"p{k}", "ID", "192.168.1.20")
        assert all(int(octet) <= 255 for octet in ip.split(".")) and ip != "192.168.1.20"
        area, group, serial = surrogates.surrogate(f"p{k}", "ID", "123-45-6789").split("-")
        assert area not in ("000", "666") and area[0] != "9" and group != "00" and serial != "0000"


def test_phone_stand_ins_can_be_dialled(surrogates):
    """A black-box study of the surrogate output (session 28): 4 of 12 phone stand-ins had area
    codes no North American number has (057, 038, 020, 811). An area code and an exchange are
    [2-9]XX and not N11; a country code 1 is kept; one number keeps one stand-in in its forms."""
    for k in range(300):
        for original in ("617-555-0142", "(617) 555-0142", "+1 617 555 0142", "617.555.0142 x21"):
            new = surrogates.surrogate(f"p{k}", "PHONE", original)
            runs = re.findall(r"\d+", new)
            if original.startswith("+1"):
                assert runs.pop(0) == "1", new
            for part in runs[:2]:
                assert part[0] not in "01" and part[1:] != "11", (original, new)
    assert (re.findall(r"\d+", surrogates.surrogate("p1", "PHONE", "+1 617 555 0142"))[1:]
            == re.findall(r"\d+", surrogates.surrogate("p1", "PHONE", "617-555-0142")))


def _one_sex_names() -> dict[str, set]:
    """The gazetteer's first names that both first-name lists give one sex alone (nine in ten
    of the name's weight in each list holding it), by sex."""
    verdicts: dict[str, set] = {}
    for table in ("first_names.tsv", "census_first_names.tsv"):
        weights: dict[str, dict] = {}
        for name, sex, weight in load_table("gazetteers", table):
            weights.setdefault(name.casefold(), {"M": 0.0, "F": 0.0})[sex] += float(weight)
        for name, share in weights.items():
            total = sum(share.values())
            verdicts.setdefault(name, set()).add(next((s for s in "MF" if share[s] >= 0.9 * total), None))
    return {sex: {n for n in FIRST if verdicts[n.casefold()] == {sex}} for sex in "MF"}


def _first_names_of(surrogates, patient, text, names):
    """The first word of the stand-in of each of ``names`` (PATIENT spans of ``text``)."""
    spans = [Span(m.start(), m.end(), "PATIENT")
             for name in names for m in re.finditer(re.escape(name), text)]
    out, new = surrogates.replace(Document("n", text, [], patient=patient), spans)
    return [out[s.start:s.end].split()[0] for s in sorted(new)]


def test_a_first_name_s_stand_in_is_of_its_bearer_s_sex_or_of_both():
    """A husband's name became a woman's: a first name the lists do not hold ('Dmitri') drew
    from either sex's names, and one both sexes bear ('Kelly', 'Jordan') from the gazetteer's
    last listing's. A name the lists give one sex draws a name of that sex alone; one they give
    no sex, or whose sex the note contradicts ('her husband Jean'), a name both sexes bear."""
    sexes = _one_sex_names()
    surrogates = Surrogates(KEY)
    text = ("Her husband Dmitri Volkov called. Wife: Kelly Jordan. Mrs. Mary Smith and her "
            "husband Jean Lee. Son Robert Smith. The wife of John Cooper.")
    for patient in range(60):
        dmitri, kelly, mary, jean, robert, john = _first_names_of(
            surrogates, f"p{patient}", text, ["Dmitri Volkov", "Kelly Jordan", "Mary Smith", "Jean Lee",
                                              "Robert Smith", "John Cooper"])
        assert dmitri not in sexes["F"] and jean not in sexes["F"], patient
        assert kelly not in sexes["M"] and kelly not in sexes["F"], patient
        assert mary in sexes["F"] and robert in sexes["M"] and john in sexes["M"], patient


def test_a_first_name_keeps_one_stand_in_in_every_note_of_a_patient_whatever_its_context():
    """The sex a note says ('husband', 'Mr.') never changes a name's stand-in where the lists
    agree or say nothing, so 'Dmitri' of 'her husband Dmitri' and of 'Dmitri called' in another
    note of the patient, and 'Robert' with and without 'Mr.', stay one person."""
    surrogates = Surrogates(KEY)
    for patient in ("p1", "p2", "p3", "p4"):
        first = _first_names_of(surrogates, patient, "Her husband Dmitri Volkov called. Mr. Robert Lee.",
                                ["Dmitri Volkov", "Robert Lee"])
        again = _first_names_of(surrogates, patient, "Dmitri Volkov called back; Robert Lee too.",
                                ["Dmitri Volkov", "Robert Lee"])
        assert first == again, patient


def test_re_substituted_training_names_are_drawn_as_before():
    """The training copies' stand-ins (``broad_names``) are what the shipped model was trained
    on: the sex rules of the released stand-ins leave them as they were, so the preset still
    rebuilds the model."""
    broad = Surrogates(KEY, broad_names=True)
    common = Surrogates(KEY, broad_names=True, common_names=0.5)
    for original, expected, with_common in [
            ("Dmitri Volkov", "Randolph Liles", "Joseph Postley"),
            ("Mrs. Kelly Jordan", "Mrs. Billy Ellsworth", "Mrs. Frederick Raymond"),
            ("Jean Lee", "Gaston Harold", "Tyler Dennis"), ("Robert Smith", "Harry Kittel", "Leon Hermance")]:
        assert broad.surrogate("p1", "PATIENT", original) == expected
        assert common.surrogate("p1", "PATIENT", original) == with_common
