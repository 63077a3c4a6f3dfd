"""How often models find a patient's last name written after 'pt' or a title, and what they tag
after 'pt' when no name follows.

    python experiments/named_subjects.py --model itdeid/models/default [--model M2 ...] [--out FILE]

The PhysioNet split never names the patient after 'pt' ('pt Murphy tolerated diet'): its 'pt'
is followed by a verb or an adjective ('PT REMAINS', 'pt alert'). Notes from elsewhere do write
it, and cross-validation on the split can say what teaching it costs in precision but not what it
gains. So this writes short nursing sentences of its own: each of the commonest US last names of
the 1990 census (the gazetteer's, public domain) after each subject word, and each of a list of
clinical words after the same subjects (where nothing is PHI), in three casings (as typed, lower,
upper), and counts per subject and casing the names found (a predicted span overlaps the name)
and the clinical words tagged. The sentences are not the generator's (``synth_nursing.json``'s
``named`` phrases): other predicates, other frames. No corpus note is read.
"""
from __future__ import annotations

import argparse
import csv
from importlib import resources

import pandas as pd

from itdeid import Document, load_model
from itdeid.evaluation.report import header, markdown_table

from common import publish, run_script

#: Subject words, as a nurse writes them before a name.
SUBJECTS = ("Pt ", "pt ", "Pt. ", "Patient ", "Mr ", "Mrs. ")
#: What follows the name (never a phrase of the generator's).
PREDICATES = ("tolerating po's", "sitting up in chair most of shift", "resting quietly w/ eyes closed",
              "oob w/ assist of 2", "c/o headache, tylenol given", "pulled at lines overnight",
              "refused turning", "voiding qs", "seen by pt today", "asking for family")
#: Words written after 'pt' in capitals where no name follows (the clinical distractors).
CLINICAL = ("Alert", "Denies", "Remains", "Stable", "Tolerating", "Resting", "Sleeping", "Will",
            "Awake", "Afebrile", "Comfortable", "Oriented", "Sedated", "Unable", "Continues",
            "Received", "Given", "Calm", "Restless", "Febrile")
#: Before each sentence: a heading and a finding, as in a nursing note.
FRAMES = ("NPN 7a-7p: VSS. {s}. Lungs clear.", "Neuro: {s}, MAE. Plan: cont to monitor.",
          "{s}. Abd soft, +BS.")
CASINGS = {"as typed": str, "lower": str.lower, "upper": str.upper}


def last_names(n: int) -> list[str]:
    """The ``n`` commonest last names of the census list shipped with itdeid."""
    with resources.files("itdeid.gazetteers").joinpath("census_last_names.tsv").open() as f:
        rows = [r for r in csv.reader((line for line in f if not line.startswith("#")), delimiter="\t")][1:]
    rows.sort(key=lambda r: -float(r[1]))
    return [name.capitalize() for name, _ in rows[:n]]


def probes(names: list[str]) -> list[tuple[Document, str, str, str, int, int]]:
    """(note, subject, casing, 'name' or 'clinical', start, end) for each probe sentence, where
    start and end hold the word after the subject."""
    out = []
    for kind, words in (("name", names), ("clinical", CLINICAL)):
        for i, word in enumerate(words):
            for j, subject in enumerate(SUBJECTS):
                frame = FRAMES[(i + j) % len(FRAMES)]
                rest = PREDICATES[(i * len(SUBJECTS) + j) % len(PREDICATES)]
                if kind == "clinical":
                    rest = rest.split(" ", 1)[-1]
                sentence = f"{subject}{word} {rest}"
                for casing, case in CASINGS.items():
                    text = case(frame.format(s=sentence))
                    start = text.index(case(subject + word)) + len(subject)
                    doc = Document(f"{kind}-{i}-{j}-{casing}", text)
                    out.append((doc, subject.strip(), casing, kind, start, start + len(word)))
    return out


def score(model_path: str, cases) -> pd.DataFrame:
    model = load_model(model_path)
    predicted = model.predict([c[0] for c in cases])
    rows = []
    for (doc, subject, casing, kind, start, end), spans in zip(cases, predicted):
        hit = any(s.start < end and start < s.end for s in spans)
        rows.append({"subject": subject, "casing": casing, "kind": kind, "hit": hit})
    return pd.DataFrame(rows)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", action="append", required=True, help="a model folder (repeat to compare)")
    p.add_argument("--names", type=int, default=100, help="how many of the commonest census last names")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    cases = probes(last_names(args.names))
    tables = []
    for path in args.model:
        hits = score(path, cases)
        table = hits.pivot_table(index=["kind", "subject"], columns="casing", values="hit", aggfunc="mean") * 100
        table["all"] = hits.groupby(["kind", "subject"])["hit"].mean() * 100
        tables.append((path, table, hits.groupby("kind")["hit"].mean() * 100))
    text = header("Patients named after 'pt' or a title: names found, clinical words tagged")
    text += (f"- probes: the {args.names} commonest census last names and {len(CLINICAL)} clinical words, "
             f"after each of {len(SUBJECTS)} subjects, in {len(CASINGS)} casings ({len(cases)} sentences)\n\n")
    for path, table, overall in tables:
        text += (f"## `{path}`\n\nnames found: {overall.get('name', float('nan')):.1f} %; clinical words "
                 f"tagged: {overall.get('clinical', float('nan')):.1f} %\n\n"
                 "Percent of probes with a predicted span over the word (names: higher is better; "
                 "clinical words: lower is better):\n\n")
        text += markdown_table(table.reset_index(), floatfmt=".1f") + "\n"
    publish(text, args.out)


if __name__ == "__main__":
    run_script(main, "named_subjects.py")
