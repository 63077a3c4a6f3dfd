"""Month names and the date formats of the synthetic corpus.

:func:`fmt_date` writes a date in one of the named formats: 'mdy4' 3/7/2004, 'mdy4z' 03/07/2004,
'mdy2' 03/07/04, 'dash2' 03-07-04, 'iso' 2004-03-07, 'long' March 7, 2004, 'abbr' Mar. 7, 2004,
'md' 3/7, 'md_long' March 7, 'ord' 7th of March, 'month_year' March 2004, 'year' 2004, and a few
more. The names are the vocabulary of the styles' date weights
(:data:`~itdeid.synth.styles.STYLES`) and of the header and signature layouts.

Why apart: a style says *which* formats it favours, this module says what each one looks like;
the mix is what teaches a model that all of them are DATE, and a new format is added here and
named in a style, nowhere else. No random draws happen here.
"""
from __future__ import annotations

import datetime as _dt

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
MONTHS_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fmt_date(d: _dt.date, fmt: str) -> str:
    yy = f"{d.year % 100:02d}"
    if fmt == "mdy4":
        return f"{d.month}/{d.day}/{d.year}"
    if fmt == "mdy4z":
        return f"{d.month:02d}/{d.day:02d}/{d.year}"
    if fmt == "mdy2":
        return f"{d.month:02d}/{d.day:02d}/{yy}"
    if fmt == "mdy2n":
        return f"{d.month}/{d.day}/{yy}"
    if fmt == "dash2":
        return f"{d.month:02d}-{d.day:02d}-{yy}"
    if fmt == "iso":
        return f"{d.year}-{d.month:02d}-{d.day:02d}"
    if fmt == "long":
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"
    if fmt == "abbr":
        dot = "." if d.month != 5 else ""
        return f"{MONTHS_ABBR[d.month - 1]}{dot} {d.day}, {d.year}"
    if fmt == "md_long":
        return f"{MONTHS[d.month - 1]} {d.day}"
    if fmt == "md_abbr":
        return f"{MONTHS_ABBR[d.month - 1]} {d.day}"
    if fmt == "ord":
        suffix = "th" if 10 <= d.day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(d.day % 10, "th")
        return f"{d.day}{suffix} of {MONTHS[d.month - 1]}"
    if fmt == "md":
        return f"{d.month}/{d.day}"
    if fmt == "month_year":
        return f"{MONTHS[d.month - 1]} {d.year}"
    if fmt == "year":
        return f"{d.year}"
    raise ValueError(fmt)
