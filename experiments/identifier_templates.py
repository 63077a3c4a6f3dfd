"""What the fixed-shape identifier templates match in an annotated corpus, by HIPAA kind.

    python experiments/identifier_templates.py --corpus CORPUS [--out experiments/results/identifiers-NAME.md]
    python experiments/identifier_templates.py --synthetic 400 --seed 4242 --nursing-share 0.5 [--out ...]

The templates of ``features/identifiers.json`` are applied after the model and tag whatever
they match (:mod:`itdeid.passes.identifiers`), so each must be precise on real notes. This counts, per
kind, the matches that overlap a gold PHI span (and of those, how many have the template's
class) and the matches that overlap none (false alarms). No training is involved, so the counts
are the same in every cross-validation fold. The 'plain' templates of the same file clear the
model's tags on shapes that are never PHI ('at 2000', 'BP 75/40'): for them a match overlapping
gold PHI is the error, counted the same way (``overlap_phi``, which must stay 0). No note text
is printed. ``--synthetic N`` judges them on ``itdeid synth --records N --seed S
--nursing-share F`` instead: names and places that no rule was written from (the rules were
written after reading the PhysioNet split's errors, so its counts of 0 flatter them). The eponym rule (:mod:`itdeid.passes.eponyms`), the drug-name rule
(:mod:`itdeid.passes.drug_names`), the care-term rule (:mod:`itdeid.passes.clinical_terms`), the
everyday-word rules, alone and in runs (:mod:`itdeid.passes.everyday_words`), the lone-region rule
(:mod:`itdeid.passes.regions`) and the lone-letter rule (:mod:`itdeid.passes.lone_letters`) are counted with them.
"""
from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from itdeid.passes.clinical_terms import clinical_term_tokens, medicine_run_tokens
from itdeid.passes.drug_names import drug_tokens
from itdeid.passes.eponyms import eponym_tokens
from itdeid.passes.everyday_words import everyday_run_tokens, everyday_word_tokens
from itdeid.passes.lone_letters import lone_letter_tokens
from itdeid.passes.name_trailers import name_trailer_tokens
from itdeid.featurize.lexicon import Lexicon
from itdeid.passes.note_slips import note_slip_tokens
from itdeid.document import LABELS
from itdeid.featurize import token_offsets, tokenize_documents
from itdeid.passes.identifiers import identifier_spans, plain_matches, plain_templates
from itdeid.passes.regions import LOCATION, lone_region_tokens
from itdeid.evaluation.report import header, markdown_table
from itdeid.synth import generate

from common import publish, read_choice_corpus, run_script


def count_matches(documents) -> pd.DataFrame:
    """Per kind: matches overlapping gold PHI, of those with the same class, and the others."""
    phi, same, alarms = Counter(), Counter(), Counter()
    for d in documents:
        for span, kind in identifier_spans(d.text):
            overlapping = [g for g in d.spans if g.start < span.end and span.start < g.end]
            if overlapping:
                phi[kind] += 1
                same[kind] += any(g.type == span.type for g in overlapping)
            else:
                alarms[kind] += 1
    kinds = sorted(set(phi) | set(alarms))
    return pd.DataFrame([{"kind": k, "overlap_phi": phi[k], "same_class": same[k],
                          "false_alarms": alarms[k]} for k in kinds],
                        columns=["kind", "overlap_phi", "same_class", "false_alarms"]).set_index("kind")


#: The row of the eponym rule (features/eponyms.json), counted with the plain templates.
EPONYMS = "an eponym before what it names (eponyms.json)"
#: The row of the drug-name rule (gazetteers/drug_names.txt).
DRUGS = "a drug name standing alone (drug_names.txt)"
#: The row of the care-term rule (features/clinical_terms.json).
TERMS = "a care term standing alone (clinical_terms.json)"
#: The row of the medicine-run rule (itdeid.passes.clinical_terms.medicine_run_tokens).
MEDICINE_RUNS = "two drug names or care terms tagged together (drug_names.txt, clinical_terms.json)"
#: The row of the everyday-word rule (itdeid.passes.everyday_words).
EVERYDAY = "an everyday word standing alone, its case no signal (everyday_words)"
#: The row of the lone-letter rule (itdeid.passes.lone_letters).
LETTERS = "a single letter with no tag within two tokens (lone_letters)"
#: The row of the everyday-run rule (itdeid.passes.everyday_words.everyday_run_tokens).
EVERYDAY_RUNS = "two everyday words tagged together, their case no signal (everyday_words)"
#: The row of the lone-region rule (itdeid.passes.regions).
REGIONS = "a state or a country standing alone, typed LOCATION (regions)"
#: The row of the name-trailer rule (itdeid.passes.name_trailers).
TRAILERS = "an ordinary word tagged at a person's name's end (name_trailers)"
#: The row of the note-slip rule (itdeid.passes.note_slips).
SLIPS = "a slip of a word the notes use, standing alone (note_slips; the corpus's own lexicon)"


def count_plain(documents) -> pd.DataFrame:
    """Per 'plain' kind: matches overlapping gold PHI (what the template would clear) and not;
    and the same for the eponym rule, which clears only tagged tokens: counted as if every
    token were tagged; and for the drug-name, care-term, everyday-word and lone-region rules (the
    last for a token typed LOCATION), which clear a tagged token
    standing alone: counted as if each token were tagged alone (every other token at a time);
    for the everyday-run and medicine-run rules as if each pair of neighbouring tokens were
    tagged alone; for the name-trailer rule on the gold names, and on each made one token longer;
    for the note-slip rule as the drug-name rule, with the lexicon of the corpus's own notes;
    and for the lone-letter rule as if every third token were tagged, and every
    gold PHI token."""
    phi, other = Counter(), Counter()
    for d in documents:
        for a, b, kind in plain_matches(d.text):
            hit = any(g.start < b and a < g.end for g in d.spans)
            (phi if hit else other)[kind] += 1
    # the words the corpus's notes use outside its gold PHI, as a model trained on them keeps
    seen = Lexicon.count(tokenize_documents(documents, gold=True)).seen
    for td in tokenize_documents(documents, gold=False):
        starts, ends = token_offsets(td)
        gold = np.zeros(len(starts), dtype=bool)
        for g in td.document.spans:
            gold[np.searchsorted(ends, g.start, side="right"):np.searchsorted(starts, g.end, side="left")] = True
        # as if the model had tagged every token: every place the eponym rule would clear
        for lo, hi in eponym_tokens(td.document.text, starts, ends, np.ones(len(starts), dtype=np.int64)):
            (phi if gold[lo:hi].any() else other)[EPONYMS] += 1
        # every other token tagged, then the rest: each tagged token stands alone (one array a
        # token, as before, was quadratic in a note's length)
        for parity in (0, 1):
            alone = (np.arange(len(starts)) % 2 == parity).astype(np.int64)
            for k in drug_tokens(td.document.text, starts, ends, alone):
                (phi if gold[k] else other)[DRUGS] += 1
            for k in clinical_term_tokens(td.document.text, starts, ends, alone):
                (phi if gold[k] else other)[TERMS] += 1
            for k in everyday_word_tokens(td.document.text, starts, ends, alone):
                (phi if gold[k] else other)[EVERYDAY] += 1
            for k in lone_region_tokens(td.document.text, starts, ends, alone * LOCATION):
                (phi if gold[k] else other)[REGIONS] += 1
            for k in note_slip_tokens(td, alone, seen):
                (phi if gold[k] else other)[SLIPS] += 1
        # every gold name as it is, then each run one token longer: the gold word a name ends
        # with, and the word after every name, as the rule would judge them
        names = np.zeros(len(starts), dtype=np.int64)
        for g in td.document.spans:
            if g.type in ("PATIENT", "DOCTOR"):
                lo, hi = np.searchsorted(ends, g.start, side="right"), np.searchsorted(starts, g.end, side="left")
                names[lo:hi] = LABELS.index(g.type)
        longer = names.copy()
        last = np.flatnonzero((names != 0) & (np.append(names[1:], 0) == 0))
        last = last[last + 1 < len(names)]
        longer[last + 1] = names[last]
        for codes in (names, longer):
            for k in name_trailer_tokens(td.document.text, starts, ends, codes):
                (phi if gold[k] else other)[TRAILERS] += 1
        # every third token tagged, then the others, and every gold PHI token (an initial stands
        # beside the rest of its name): no tag within two tokens of a tagged one but gold's
        for parity in range(3):
            spaced = ((np.arange(len(starts)) % 3 == parity) | gold).astype(np.int64)
            for k in lone_letter_tokens(td.document.text, starts, ends, spaced):
                (phi if gold[k] else other)[LETTERS] += 1
        # every pair of neighbouring tokens tagged, pairs apart by an untagged token, three
        # offsets: each pair a run the everyday-run rule may clear
        for offset in range(3):
            pairs = (((np.arange(len(starts)) - offset) % 3) < 2).astype(np.int64)
            pairs[:offset] = 0
            for k in everyday_run_tokens(td.document.text, starts, ends, pairs):
                (phi if gold[k] else other)[EVERYDAY_RUNS] += 1
            for k in medicine_run_tokens(td.document.text, starts, ends, pairs):
                (phi if gold[k] else other)[MEDICINE_RUNS] += 1
    kinds = [kind for kind, _pattern in plain_templates()] + [EPONYMS, DRUGS, TERMS, MEDICINE_RUNS, EVERYDAY,
                                                              EVERYDAY_RUNS, TRAILERS, SLIPS, REGIONS, LETTERS]
    return pd.DataFrame([{"kind": k, "overlap_phi": phi[k], "outside_phi": other[k]} for k in kinds],
                        columns=["kind", "overlap_phi", "outside_phi"]).set_index("kind")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus")
    source.add_argument("--synthetic", type=int, metavar="N", help="N records of itdeid synth instead")
    p.add_argument("--seed", type=int, default=0, help="with --synthetic: the generator's seed")
    p.add_argument("--nursing-share", type=float, default=0.0,
                   help="with --synthetic: the share of ICU nursing notes (itdeid synth --nursing-share)")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    if args.synthetic is not None:
        documents = generate(args.synthetic, args.seed, args.nursing_share)
        name = f"itdeid synth --records {args.synthetic} --seed {args.seed} --nursing-share {args.nursing_share}"
    else:
        documents = read_choice_corpus(args.corpus)
        name = Path(args.corpus).stem if Path(args.corpus).is_file() else Path(args.corpus).name
    table = count_matches(documents)
    text = header(f"Identifier templates on {name}")
    text += (f"- corpus: {len(documents)} documents, {sum(len(d.spans) for d in documents)} gold "
             "PHI spans\n\nMatches of features/identifiers.json by HIPAA kind (kinds with no match "
             "are not listed):\n\n")
    text += markdown_table(table, floatfmt=".0f")
    text += ("\nMatches of its 'plain' templates (shapes never PHI, whose tokens lose the model's tag; "
             "a match overlapping gold PHI would clear PHI):\n\n")
    text += markdown_table(count_plain(documents), floatfmt=".0f")
    publish(text, args.out)


if __name__ == "__main__":
    run_script(main, "identifier_templates.py")
