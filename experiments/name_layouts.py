"""How often a model finds a name written in the layouts of headers, signatures and contact lines.

    python experiments/name_layouts.py --model itdeid/models/default [--without join_gaps ...]
        [--out experiments/results/name-layouts.md]

The PhysioNet split is nursing prose; discharge summaries and letters also write names in fields:
'PCP: Hall, Norman', 'ATTENDING: OKONKWO, GRACE', 'EMERGENCY CONTACT: DMITRI SOKOLOV (SON)',
a signature line 'Anna Bell, MD', 'Dr. Stone agrees'. A black-box probe of session 28 found the
trees lost the surname of most 'Surname, First' headers whose surname is also an English word
('Hall', 'Brown', 'Said'), and of many all-capital contact lines. This writes such notes itself
(no corpus note is read): each surname of a list (English-word surnames, and others of several
origins) with a first name, in each layout, in the casing the layout is usually written in, and
counts per layout the names found whole (every letter of the name inside a predicted span),
found in part, and missed, and the predicted spans outside the names and the phone numbers
(false alarms: 'Clinic Note' tagged HOSPITAL).

``--without PARAM`` adds a row of the same model with a run-time rule switched off
(``join_gaps``, ``subject_names``, ``identifiers``: the rules applied after the trees'
decisions), so a rule's effect shows beside the model as shipped.
"""
from __future__ import annotations

import argparse

import pandas as pd

from itdeid import Document, load_model
from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script

#: Surnames that are everyday English words too, then surnames of several origins.
WORD_SURNAMES = ("Hall", "Said", "Brown", "Stone", "Long", "White", "Green", "Foley", "Bell", "Best",
                 "Young", "King", "Walker", "Ward", "Rose", "Price", "Wood", "Murphy")
OTHER_SURNAMES = ("Kowalczyk", "Garcia", "Nguyen", "Okonkwo", "Smith", "Patel", "Haddad", "Sokolov",
                  "Kamau", "Lee")
FIRST_NAMES = ("Susan", "Paul", "Maria", "David", "Anna", "Omar", "Grace", "Ivan")
#: Layouts: (name, text with {name} where the name goes, how the name is written).
LAYOUTS = (
    ("header 'Label: Surname, First'", "Clinic Note\n{label}: {name}\nSeen for follow up.\n", "Surname, First"),
    ("header in capitals", "CLINIC NOTE\n{LABEL}: {name}\nSEEN FOR FOLLOW UP.\n", "SURNAME, FIRST"),
    ("contact line in capitals", "SOCIAL HISTORY\nEMERGENCY CONTACT: {name} (SON) 617-555-0192\nLIVES ALONE.\n",
     "FIRST SURNAME"),
    ("next of kin line", "Social history: lives alone.\nNext of kin: {name}, daughter, 617-555-0100\n",
     "First Surname"),
    ("after 'Dr.' in prose", "Progress Note\nPatient improving. Dr. {name} agrees with plan.\n", "Surname"),
    ("signature line", "Progress Note\nPatient improving. Plan per primary team.\n{name}, MD\n", "First Surname"),
    ("bare surname in prose", "Progress Note\nPatient improving. Discussed with {name} in cardiology.\n",
     "Surname"),
)
#: Header labels, each with the layouts' two casings.
LABELS = ("PCP", "Attending", "Patient", "Referring", "Provider")


def _written(form: str, surname: str, first: str) -> str:
    return (form.replace("SURNAME", surname.upper()).replace("FIRST", first.upper())
            .replace("Surname", surname).replace("First", first))


def probes() -> list[tuple[Document, str, int, int]]:
    """(note, layout, start, end of the name) for each probe note."""
    out = []
    surnames = WORD_SURNAMES + OTHER_SURNAMES
    for layout, template, form in LAYOUTS:
        labels = LABELS if "{label}" in template.lower() else ("",)
        for i, surname in enumerate(surnames):
            name = _written(form, surname, FIRST_NAMES[i % len(FIRST_NAMES)])
            for label in labels:
                text = template.format(name=name, label=label, LABEL=label.upper())
                start = text.index(name)
                out.append((Document(f"{len(out)}", text), layout, start, start + len(name)))
    return out


def score(model, cases) -> pd.DataFrame:
    predicted = model.predict([c[0] for c in cases])
    rows = []
    for (doc, layout, start, end), spans in zip(cases, predicted):
        covered = {k for s in spans for k in range(max(s.start, start), min(s.end, end))}
        letters = [k for k in range(start, end) if doc.text[k].isalpha()]
        found = sum(k in covered for k in letters)
        # outside the name; the layouts' phone numbers are PHI too, and hold the only digits
        alarms = sum(1 for s in spans if (s.end <= start or s.start >= end)
                     and not any(c.isdigit() for c in doc.text[s.start:s.end]))
        rows.append({"layout": layout, "whole": found == len(letters), "part": 0 < found < len(letters),
                     "missed": found == 0, "false alarms": alarms})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="itdeid/models/default")
    p.add_argument("--without", action="append", default=[], metavar="PARAM",
                   help="also score the model with this run-time rule off (join_gaps, subject_names, identifiers)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    cases = probes()
    text = header("Names in the layouts of headers, signatures and contact lines")
    text += (f"- model: `{args.model}`\n- probes: {len(cases)} notes, {len(LAYOUTS)} layouts, "
             f"{len(WORD_SURNAMES)} surnames that are English words and {len(OTHER_SURNAMES)} others "
             "(the names and notes are this script's own)\n\n"
             "Percent of the names found whole (every letter inside a predicted span), in part, and "
             "missed, and false alarms (predicted spans outside the name) a note:\n\n")
    variants = [("as shipped", {})] + [(f"without {p_}", {p_: False}) for p_ in args.without]
    tables = []
    for name, params in variants:
        model = load_model(args.model)
        if params:
            model.set_params(**params)
        frame = score(model, cases)
        table = frame.groupby("layout", sort=False).agg(
            notes=("whole", "size"), whole=("whole", "mean"), part=("part", "mean"), missed=("missed", "mean"),
            false_alarms=("false alarms", "mean"))
        table[["whole", "part", "missed"]] *= 100
        table.loc["all"] = [len(frame), 100 * frame["whole"].mean(), 100 * frame["part"].mean(),
                            100 * frame["missed"].mean(), frame["false alarms"].mean()]
        table.insert(0, "model", name)
        tables.append(table.reset_index())
    text += markdown_table(pd.concat(tables, ignore_index=True), floatfmt=".1f")
    publish(text, args.out)


if __name__ == "__main__":
    run_script(main, "name_layouts.py")
