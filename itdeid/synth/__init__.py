"""Synthetic discharge summaries in the manner of the i2b2 2006 de-identification corpus.

``generate(records, seed)`` returns ``records`` :class:`~itdeid.document.Document` objects with
gold PHI spans of the eight 2006 classes. It is the project's default corpus for demos, tests and
experiments, so it is built to be *learnable but not memorizable*:

- a world of hospitals (full name, acronym, partial name, address, phone, units), their doctors
  and patients, each patient with a timeline of admissions (increasing dates, the same name, MRN
  and hospital, the same primary care physician and attendings);
- six writing styles (header layout, heading case, date-format habits, list layout, signature
  block, line wrapping, how often the patient is named in flow text), chosen per hospital with
  some records written in another style;
- 24 kinds of section under many surface headings, structured lines (medications with doses,
  labs, vital signs, ranges such as '2-3' and '150-160/80-90' that look like dates), flow text from
  several hundred sentence templates with PHI and clinical slots (``gazetteers/clinical_terms.json``
  and ``gazetteers/synth_phrases.json``), none used twice in a record;
- one principal problem a record (``gazetteers/synth_problems.json``: CHF exacerbation,
  pneumonia, hip fracture, ...) that drives its chief complaint, history, diagnosis, work-up,
  treatment, course, discharge medications, follow-up and disposition; hospital courses of
  long-tailed length (most 4-12 sentences, about 15 % of 20-40 in paragraphs by problem or by
  day, where the same doctors and hospital come back again and again);
- the same entity in several surface forms within a record ('SMITH, JOHN', 'Mr. Smith',
  'J. Smith'; 'LEARY, KEVIN M.D.', 'Dr. Leary', 'KL/ab'; 'Fairview Memorial Hospital', 'FMH',
  'Cardiology Clinic of FMH'), names that are common words or eponyms
  (``common_word_names.txt``), lower-case and all-caps mentions;
- token class proportions near the 2006 test set (the paper's Table 2): doctors, dates and
  hospitals dominate, AGE (ages over 89 only) is very rare;
- when asked (``generate(..., nursing=0.5)``, ``itdeid synth --nursing-share``), a share of
  records written instead as short ICU nursing progress notes in the manner of the PhysioNet
  deid corpus: all capitals or all lower case, system headings, ventilator settings and pain
  scores shaped like dates, misspellings, relatives after a relation word, staff after a title
  or role, the writer's signature.

Text and spans are built together from ``(text, class or None)`` pieces, so every span's
offsets are exact. Everything is drawn from one ``random.Random(seed)``: the same seed gives the
same corpus, byte for byte.

Conventions (deliberate, so a model can learn them): clock times are not PHI; header, accession
and transcription numbers (``Batch:``, ``Job #``, ``Index No.``, document numbers) are ID, since
they lead back to the patient's record;
weekdays are not DATE; ages of 89 and under are not AGE; a span never includes titles or degrees
('Dr.', 'Mr.', 'M.D.'); city, state, street and zip are separate LOCATION spans; a unit's name is
not part of the HOSPITAL span ('Cardiology Clinic of <FMH>').

One module a job, so each part can be read and changed alone (only :func:`generate` and
:data:`STYLES` are public; the modules are the package's inside):

- :mod:`~itdeid.synth.styles`: the six writing styles and the section orders (data);
- :mod:`~itdeid.synth.sources`: the word lists drawn from, read once from ``gazetteers/``;
- :mod:`~itdeid.synth.world`: hospitals, doctors, facilities, patients and their admissions;
- :mod:`~itdeid.synth.dates`: month names and the date formats;
- :mod:`~itdeid.synth.record`: one record, its choices and the order of its parts, made of the
  mixins :mod:`~itdeid.synth.mentions` (how names, doctors, hospitals, places, phones and dates
  are written), :mod:`~itdeid.synth.templates` (sentence templates and their slots),
  :mod:`~itdeid.synth.problems` (the principal problem and the sections it writes),
  :mod:`~itdeid.synth.content` (the other section bodies: headings, lists, medications, labs) and
  :mod:`~itdeid.synth.layout` (header and signature blocks);
- :mod:`~itdeid.synth.nursing` (a subpackage): one ICU nursing progress note, the other kind of
  record (its phrases in ``gazetteers/synth_nursing.json``): ``note`` (the note's choices and the
  order of its parts), ``layout`` (header line, signature, lines), ``bodies`` (system sections,
  S/O/A/P, narrative, respiratory therapist, and their PHI sentences), ``phrases`` (phrases and
  their slots), ``mentions`` (relatives, staff, doctors, hospitals, days as a nurse writes them),
  ``readings`` (measurements shaped like dates, none PHI) and ``passes`` (misspellings and
  casing);
- :mod:`~itdeid.synth.render`: pieces, line wrapping, and pieces to text with exact spans.
"""
from __future__ import annotations

import random
import unicodedata
from dataclasses import replace

from itdeid.document import Document
from itdeid.synth.nursing import NursingNote
from itdeid.synth.record import Record
from itdeid.synth.render import assemble
from itdeid.synth.styles import STYLES
from itdeid.synth.world import World

__all__ = ["generate", "supplement", "STYLES"]
#: Prefix of a supplement's document ids and patients (:func:`supplement`).
SUPPLEMENT_PREFIX = "synthetic:"


def generate(records: int, seed: int = 0, nursing: float = 0.0, named: float = 0.0) -> list[Document]:
    """``records`` synthetic discharge summaries with gold PHI spans, the same for the same
    ``seed``. Documents are ``<patient>-<n>`` (a patient's admissions in date order) and carry
    ``patient``. ``nursing`` (0 to 1) is the share of records written as ICU nursing progress
    notes instead (:mod:`~itdeid.synth.nursing`); at 0, the default, no draw is spent on the
    choice, so the corpus is the one it always was. ``named`` (0 to 1) is the share of nursing
    notes with PHI that name the patient in a sentence ('Pt Murphy afebrile'); at 0, the
    default, likewise."""
    if records < 0:
        raise ValueError("records must be >= 0")
    if not 0.0 <= nursing <= 1.0:
        raise ValueError("nursing must be between 0 and 1")
    if not 0.0 <= named <= 1.0:
        raise ValueError("named must be between 0 and 1")
    rng = random.Random(seed)
    world = World(rng, records)
    documents = []
    for patient, index in world.patients(records):
        if nursing and rng.random() < nursing:
            pieces = NursingNote(world, patient, index, rng, named=named).build()
        else:
            pieces = Record(world, patient, index, rng).build()
        text, spans = assemble(pieces)
        documents.append(Document(f"{patient.number}-{index + 1}", text, spans,
                                  patient=str(patient.number)))
    return documents


def supplement(records: int, seed: int = 0, nursing: float = 0.5, named: float = 0.0) -> list[Document]:
    """:func:`generate`'s records to add to a real training corpus, their ids and patients
    prefixed ``synthetic:`` so that none shares a real note's id or patient (a shared patient
    would put synthetic and real notes in one inner fold). Half nursing notes by default: added
    to PhysioNet's nursing notes they ranked real PHI better over 10 folds
    (experiments/NOTEBOOK.md), where discharge summaries alone taught little about nursing notes.
    ``named`` is :func:`generate`'s (the recipe's 0.3: experiments/levers.py's
    ``_NAMED`` row, itdeid/training/recipe.py)."""
    return [replace(d, id=SUPPLEMENT_PREFIX + d.id, patient=SUPPLEMENT_PREFIX + d.patient)
            for d in generate(records, seed=seed, nursing=nursing, named=named)]


def latin1_folded(documents: list[Document]) -> tuple[list[Document], int]:
    """``documents`` with every character latin-1 cannot hold replaced, one for one (offsets and
    spans unchanged), by its Latin base letter ('ı' -> 'i', 'ł' -> 'l') or else '?', and how many
    were: the PhysioNet format is latin-1, and the stand-in names of many countries are not.
    For synthetic text only, which no one needs verbatim."""
    def fold(c: str) -> str:
        if ord(c) < 256:
            return c
        base = unicodedata.normalize("NFKD", c)[0]
        if ord(base) < 256:
            return base
        words = unicodedata.name(c, "").split()   # 'LATIN SMALL LETTER DOTLESS I'
        letter = next((w for w in words[3:] if len(w) == 1), None)
        if words[:3] not in (["LATIN", "SMALL", "LETTER"], ["LATIN", "CAPITAL", "LETTER"]) or letter is None:
            return "?"
        return letter.lower() if words[1] == "SMALL" else letter
    folded, count = [], 0
    for doc in documents:
        text = "".join(map(fold, doc.text))
        count += sum(a != b for a, b in zip(text, doc.text))
        folded.append(replace(doc, text=text))
    return folded, count
