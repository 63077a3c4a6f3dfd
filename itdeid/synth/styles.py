"""The writing styles of the synthetic corpus, and the order of a record's sections.

Every hospital of the world writes in one of the six styles of :data:`STYLES` (one record in
five in another), so a style is the generator's unit of layout variation: which header and
signature layouts it uses (:mod:`~itdeid.synth.layout`), how headings are cased, which date
formats flow text favours (:mod:`~itdeid.synth.dates`), how lists are laid out, how often the
patient is named, whether lines are wrapped. :data:`ORDERS` are the section orders a style names;
:data:`CORE` the sections every record has, :data:`KEEP` the probability of each other one.

Why a module of its own, and data rather than code: a model must learn the habits of several
writers, not one, so the styles are the knobs most often turned, and here each can be read whole
and tuned in one place; the code that reads a knob looks it up by name (``self.s[...]``).
"""
from __future__ import annotations

#: The writing styles, by name. ``header``/``signatures``: layouts of :mod:`~itdeid.synth.layout`;
#: ``heading_case``: upper, as-is or title; ``heading_newline``: probability the section body
#: starts on the next line; ``dates``: weights of date formats in flow text, ``header_date``: the
#: header's format; ``pt_named``: probability that a ``{Pt}`` slot names the patient; ``wrap``:
#: line width or 0; ``spaced``: probability the record is written with punctuation set off by
#: spaces, as the distributed 2006 files are (:func:`~itdeid.synth.render.spaced`; default 0.05).
STYLES: dict[str, dict] = {
    "partners": dict(
        header="pipe", signatures=("dictated", "dictated", "initials"), heading_case="upper",
        heading_newline=0.35, header_date="mdy4", wrap=0, caps_section=0.08, list="numbered",
        order="dx_first", pt_named=0.18, meds_inline=0.3, labs_prose=0.4,
        dates={"mdy4": 6, "mdy2": 2, "md": 2, "long": 1, "month_year": 1, "year": 1, "ord": 0.3}),
    "block": dict(
        header="block", signatures=("dictated2", "dictated"), heading_case="upper",
        heading_newline=0.1, header_date="mdy2", wrap=72, caps_section=0.15, list="numbered",
        order="chrono", pt_named=0.2, meds_inline=0.6, labs_prose=0.6,
        dates={"mdy2": 5, "mdy4": 2, "long": 2, "abbr": 1, "md": 2, "month_year": 1, "year": 1}),
    "labeled": dict(
        header="labeled", signatures=("esign", "esign", "dictated"), heading_case="title",
        heading_newline=0.7, header_date="long", wrap=0, caps_section=0.03, list="plain",
        order="chrono", pt_named=0.15, meds_inline=0.2, labs_prose=0.3,
        dates={"long": 3, "mdy4z": 4, "iso": 1, "abbr": 2, "md_long": 1, "month_year": 1,
               "year": 1, "ord": 0.5}),
    "letter": dict(
        header="letter", signatures=("letter",), heading_case="title", heading_newline=0.2,
        header_date="mdy4", wrap=80, caps_section=0.0, list="plain", order="letter",
        pt_named=0.4, meds_inline=0.7, labs_prose=0.8,
        dates={"long": 4, "mdy4": 3, "md_long": 2, "abbr": 1, "month_year": 1, "year": 1,
               "ord": 1}),
    "terse": dict(
        header="terse", signatures=("initials", "esign"), heading_case="short",
        heading_newline=0.0, header_date="dash2", wrap=0, caps_section=0.1, list="dash",
        order="chrono", pt_named=0.15, meds_inline=0.5, labs_prose=0.1,
        dates={"dash2": 4, "md": 4, "mdy2": 2, "iso": 1, "abbr": 1, "year": 1}),
    # The distributed i2b2 2006 files: the header one field a line, the dictation footer with
    # signature codes, and punctuation set off by spaces ('OBRIEN , NATHANIEL', 'DATE :').
    "i2b2": dict(
        header="i2b2", signatures=("i2b2", "i2b2", "dictated"), heading_case="upper",
        heading_newline=0.5, header_date="mdy4z", wrap=0, caps_section=0.3, list="numbered",
        order="dx_first", pt_named=0.2, meds_inline=0.4, labs_prose=0.5, spaced=1.0,
        dates={"mdy4z": 4, "mdy2": 3, "md": 2, "long": 1, "month_year": 1, "year": 1}),
}

ORDERS = {
    "dx_first": ("principal_dx", "other_dx", "procedures", "cc", "hpi", "pmh", "psh", "adm_meds",
                 "allergies", "social", "family", "ros", "exam", "labs", "studies", "course",
                 "consults", "condition", "dis_meds", "disposition", "diet", "activity",
                 "followup", "code"),
    "chrono": ("cc", "hpi", "pmh", "psh", "adm_meds", "allergies", "social", "family", "ros",
               "exam", "labs", "studies", "course", "consults", "procedures", "principal_dx",
               "other_dx", "condition", "disposition", "dis_meds", "diet", "activity",
               "followup", "code"),
    "letter": ("hpi", "pmh", "adm_meds", "allergies", "social", "exam", "labs", "course",
               "principal_dx", "other_dx", "dis_meds", "followup", "code"),
}
# Sections every record has; the others are kept with probability KEEP.
CORE = {"hpi", "course", "dis_meds", "principal_dx", "followup"}
KEEP = 0.72
