"""ICU nursing progress notes, the generator's second kind of record.

A model trained only on discharge summaries is lost on ICU nursing notes (the PhysioNet deid
corpus): they are short, often all capitals or all lower case, telegraphic, written by system
heading ('NEURO:', 'CV:', 'RESP:') or S/O/A/P, full of numbers shaped like dates that are not
(ventilator settings 'PS 10/5/50%', 'A/C 700x12/5/40%', pain '6/10', cultures '2/4 bottles',
ranges), misspelled, and their PHI is of other kinds: relatives after a relation word ('WIFE
MARY IN TO VISIT'), staff after a title or role ('DR SMITH AWARE', 'NP JEN'), the writer's
signature ('J. DOE RN'), hospitals and rehab facilities in the note's case, days as m/d ('8/14'),
two-digit years after history items ("MI '92"), relatives' phones, ages over 89.

:class:`NursingNote` writes one such note about one admission of one patient of the
:class:`~itdeid.synth.world.World`, naming its doctors, its hospital, the world's other hospitals
and facilities (relatives, nurses and the writer are drawn from the world's name sources): a
header line ('NPN 7a-7p', a DATE in it now and then), one of four bodies (:data:`BODIES`: system
sections, S/O/A/P, a few lines of narrative, a respiratory therapist's note) and the writer's
signature. Its phrases and headings are in ``gazetteers/synth_nursing.json`` (``lex.nursing``).
Two passes finish the note: :func:`misspell` drops, swaps or doubles a letter of a few ordinary
words in non-PHI pieces, and :func:`cased` writes the whole note, PHI included, in the note's
casing (:data:`CASING`).

Conventions, the corpus's (:mod:`itdeid.synth`) and the i2b2 2006 guideline's: a relative's name
is PATIENT (PhysioNet's RelativeProxyName), nurses, therapists and other staff are DOCTOR
(HCPName); relation words, titles and roles are outside the span, and so is the apostrophe of
"'92"; a two-digit year is DATE; shift times, clock times and measurements are not PHI.

Why a package of its own rather than a seventh entry of :data:`~itdeid.synth.styles.STYLES`: a
nursing note shares no section, header or signature with a discharge summary, only the world and
the surface forms of :mod:`~itdeid.synth.mentions`; and hospitals take their styles from
STYLES in turn, from the one random stream, so an entry there would change every corpus already
generated (``test_corpus_pinned``). :func:`~itdeid.synth.generate` writes nursing notes only
when asked (``nursing=``, ``itdeid synth --nursing-share``).

One module a job, as for the discharge summaries (only what is imported here is public):

- :mod:`~itdeid.synth.nursing.note`: :class:`NursingNote`, the choices that hold for the whole
  note and the order of its parts, made of the mixins below;
- :mod:`~itdeid.synth.nursing.layout`: the header line, the signature, and how sentences are
  joined into lines and lines into a body;
- :mod:`~itdeid.synth.nursing.bodies`: the four bodies (system sections, S/O/A/P, narrative,
  respiratory therapist), the sentences with PHI they add, the opening line and past history;
- :mod:`~itdeid.synth.nursing.phrases`: the phrases of ``synth_nursing.json`` and their slots;
- :mod:`~itdeid.synth.nursing.mentions`: relatives, doctors, staff, hospitals and days as a
  nursing note writes them;
- :mod:`~itdeid.synth.nursing.readings`: the measurement slots, many shaped like dates;
- :mod:`~itdeid.synth.nursing.passes`: the misspelling and casing passes that finish a note.
"""
from __future__ import annotations

from itdeid.synth.nursing.bodies import BODIES, SOCIAL, SYSTEMS
from itdeid.synth.nursing.note import PLAIN, NursingNote
from itdeid.synth.nursing.passes import CASING, MISSPELLED, cased, misspell
from itdeid.synth.nursing.readings import MEASURES

__all__ = ["NursingNote", "cased", "misspell", "CASING", "BODIES", "MISSPELLED", "SOCIAL", "PLAIN",
           "SYSTEMS", "MEASURES"]
