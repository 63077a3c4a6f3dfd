"""The pipeline: what itdeid does to a note, in order, declared once.

A note is read, normalized and tokenized; its layout (headings, fields, lines) is found; each
token gets its feature columns; the member models give each token P(class), the context stage
re-reads the members' probabilities of the token's neighbours, and the operating point (the
model's threshold on P(PHI)) turns probabilities into labels. :data:`STAGES` names these steps.

Then the **passes** run, in the order of :data:`PASSES`: rules that change labels where the
trees' token-by-token decisions are known to go wrong (a name's ordinary middle word, a clock
time taken for a year, an e-mail address the training notes never showed). Each pass is one
function in one module; this list alone says which runs and when. Passes come in groups that
belong together; a group whose ``when_tagged`` is set runs only on a note that holds a tag when
the group begins (its passes only join, clear or repeat tags).

Which passes a model runs is the model's to say (:func:`passes_on`: the switches it was trained
with, and what it learned); a user turns any pass or group off by name
(``itdeid deid --skip-pass NAME``, ``skip_passes`` of a model), and ``itdeid pipeline`` prints the
list with each pass's state.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import numpy as np

from itdeid.passes.clinical_terms import clinical_term_tokens, medicine_run_tokens
from itdeid.passes.drug_names import drug_tokens
from itdeid.passes.eponyms import eponym_tokens
from itdeid.passes.everyday_words import everyday_run_tokens, everyday_word_tokens
from itdeid.passes.identifiers import clear_plain_shapes, identifier_matches, tag_identifiers, untag_identifier_labels
from itdeid.passes.lone_letters import lone_letter_tokens
from itdeid.passes import name_gaps
from itdeid.passes.name_trailers import name_trailer_tokens
from itdeid.passes.note_slips import clear_note_slips
from itdeid.passes.phrase_punctuation import split_at_marks
from itdeid.passes.place_endings import untag_endings
from itdeid.passes.propagation import propagate_in_note
from itdeid.passes.regions import lone_region_tokens
from itdeid.text.spans import joining_words
from itdeid.passes.subject_names import tag_named_subjects

#: The stages before the passes, in order: (name, what it does).
STAGES: tuple[tuple[str, str], ...] = (
    ("read", "read each input in its format (text, i2b2 XML, PhysioNet, JSONL) into notes"),
    ("normalize", "decode the text and fold the characters the tokenizer treats alike"),
    ("tokenize", "split the note into word, number and punctuation tokens with their offsets"),
    ("structure", "find the note's headings, fields and lines"),
    ("featurize", "give each token its feature columns in a window of its neighbours"),
    ("members", "each member's boosted trees give each token P(class)"),
    ("context stage", "trees over the members' mean probabilities of the token and its neighbours"),
    ("operating point", "a token is PHI where P(PHI) reaches the model's threshold"),
)


@dataclass
class Note:
    """What a pass reads of one note: its text and token offsets, the tokenized note where the
    caller has one, the model's hooks, and a cache the passes of one note share."""
    text: str
    starts: np.ndarray
    ends: np.ndarray
    td: object | None = None
    model: object | None = None
    cache: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Pass:
    name: str
    purpose: str
    apply: Callable[[Note, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Group:
    name: str
    purpose: str
    passes: tuple[Pass, ...]
    when_tagged: bool = False


def _tokens(find):
    """A pass from a function that lists the tokens whose tag it clears."""
    def apply(note: Note, codes: np.ndarray) -> np.ndarray:
        codes[find(note.text, note.starts, note.ends, codes)] = 0
        return codes
    return apply


def _token_ranges(find):
    """A pass from a function that lists (first, last + 1) ranges of tokens whose tag it clears."""
    def apply(note: Note, codes: np.ndarray) -> np.ndarray:
        for lo, hi in find(note.text, note.starts, note.ends, codes):
            codes[lo:hi] = 0
        return codes
    return apply


def _on_td(function):
    """A pass from a function of the tokenized note and its codes."""
    return lambda note, codes: function(note.td, codes)


def _matches(note: Note):
    if "identifier matches" not in note.cache:
        note.cache["identifier matches"] = identifier_matches(note.text, note.cache)
    return note.cache["identifier matches"]


def _joining_words(note: Note, codes: np.ndarray) -> np.ndarray:
    cleared = joining_words(note.td.tokens, codes.tolist(), 0)
    if cleared:
        codes = np.array(codes, copy=True)
        codes[cleared] = 0
    return codes


def _note_slips(note: Note, codes: np.ndarray) -> np.ndarray:
    return clear_note_slips(note.td, codes, note.model.seen_count)


def _named_subjects(note: Note, codes: np.ndarray) -> np.ndarray:
    return tag_named_subjects(note.td, codes, note.model.known_word)


def _phrase_punctuation(note: Note, codes: np.ndarray) -> np.ndarray:
    return split_at_marks(note.td, codes, getattr(note.model, "punctuation_left_out_", ()))


def _place_endings(note: Note, codes: np.ndarray) -> np.ndarray:
    return untag_endings(note.td, codes, getattr(note.model, "place_endings_left_out_", ()))


#: Every pass, in the order it runs, in its group.
PASSES: tuple[Group, ...] = (
    Group("name_gaps", "complete names and places the trees left in pieces", (
        Pass("capitalized_gaps", "a capitalized word alone between two tags on a line (or 'and', '&', 'of' between two HOSPITAL tags) takes the class of the tag after it",
             _on_td(name_gaps.join_name_gaps)),
        Pass("state_after_place", "a state or country after a tagged place and a comma is the place's",
             _on_td(name_gaps.join_state_after_place)),
        Pass("surname_before_name", "'Surname, First' at a field's start: the surname joins the name",
             _on_td(name_gaps.join_surname_before_name)),
        Pass("initial_after_name", "a name's trailing initial is the name's",
             _on_td(name_gaps.join_initial_after_name)),
        Pass("initial_before_name", "a leading initial with its full stop is the name's",
             _on_td(name_gaps.join_initial_before_name)),
        Pass("possessive_start", "a place's name that begins with a possessive takes the word before it",
             _on_td(name_gaps.join_possessive_start)),
        Pass("saint_names", "the saint's name after a place's 'St' is the place's",
             _on_td(name_gaps.join_saint_names)),
        Pass("place_name_words", "the words of hospitals' names after a tagged place join it",
             _on_td(name_gaps.join_place_name_words)),
        Pass("hyphenated_names", "the hyphen between two halves of a name of one class takes that class",
             _on_td(name_gaps.join_hyphenated_names)),
        Pass("one_class_a_name", "the tokens of one name take one class",
             _on_td(name_gaps.one_class_a_name)),
        Pass("name_separators", "'and', 'or', 'of' and '&' beside a person's name lose the tag",
             _on_td(name_gaps.untag_name_separators)),
    ), when_tagged=True),
    Group("named_subjects", "names after 'pt' or a title", (
        Pass("named_subjects", "a census surname after 'pt', or a capitalized name after a title ('Mr. Brown' PATIENT, 'Dr. Okonkwo' DOCTOR), is a name",
             _named_subjects),
    )),
    Group("tag_review", "tags on what is never PHI are cleared; a rare tagged word is tagged "
          "wherever the note repeats it", (
        Pass("plain_shapes", "shapes never PHI (a clock time such as 'at 2000') lose the tag",
             lambda note, codes: clear_plain_shapes(note.text, note.starts, note.ends, codes, note.cache)),
        Pass("propagation", "a rare word tagged once is tagged wherever the note writes it",
             lambda note, codes: propagate_in_note(note.text, note.starts, note.ends, codes)),
        Pass("eponyms", "a tagged eponym before what it names loses the tag",
             _token_ranges(eponym_tokens)),
        Pass("drug_names", "a tagged drug name standing alone loses the tag", _tokens(drug_tokens)),
        Pass("clinical_terms", "a tagged care term standing alone loses the tag",
             _tokens(clinical_term_tokens)),
        Pass("medicine_runs", "two or three tagged drug names or care terms together lose the tag",
             _tokens(medicine_run_tokens)),
        Pass("name_trailers", "an ordinary word tagged at a name's end loses the tag",
             _tokens(name_trailer_tokens)),
        Pass("everyday_words", "an everyday English word standing alone loses the tag",
             _tokens(everyday_word_tokens)),
        Pass("everyday_runs", "two or three everyday words together lose the tag",
             _tokens(everyday_run_tokens)),
        Pass("regions", "a state or country standing alone loses its LOCATION tag", _tokens(lone_region_tokens)),
        Pass("lone_letters", "a single letter with no tag near it loses the tag",
             _tokens(lone_letter_tokens)),
    ), when_tagged=True),
    Group("identifiers", "identifiers with a fixed shape are PHI whatever the model says", (
        Pass("identifier_labels", "the label of an identifier ('MRN', 'Tel') is not PHI",
             lambda note, codes: untag_identifier_labels(note.starts, note.ends, codes, _matches(note))),
        Pass("identifier_templates", "what an identifier template matches takes its class",
             lambda note, codes: tag_identifiers(note.starts, note.ends, codes, _matches(note))),
    )),
    Group("note_slips", "slips of the notes' own words", (
        Pass("note_slips", "a tagged word one edit from a word the model saw as ordinary text loses the tag",
             _note_slips),
    )),
    Group("phrase_punctuation", "marks inside a phrase", (
        Pass("phrase_punctuation", "a mark training left outside phrases of its class loses the tag",
             _phrase_punctuation),
    )),
    Group("place_endings", "the endings of places", (
        Pass("place_endings", "an ending training left outside places loses the tag", _place_endings),
    )),
    Group("joining_words", "function words between two PHI", (
        Pass("joining_words", "a function word between two PHI of different classes is in neither",
             _joining_words),
    )),
)


def pass_names() -> list[str]:
    """Every pass's name, in the order they run."""
    return [p.name for group in PASSES for p in group.passes]


def group_names() -> list[str]:
    return [group.name for group in PASSES]


def check_skip(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a set of pass or group names; an unknown name is a ValueError listing the
    known ones."""
    names = frozenset(names)
    known = set(pass_names()) | set(group_names())
    unknown = sorted(names - known)
    if unknown:
        raise ValueError(f"no pass or group named {', '.join(unknown)} (itdeid pipeline lists them: "
                         f"{', '.join(pass_names())})")
    return names


def check_skip_passes(value) -> None:
    """A model's ``skip_passes``, checked: a list or tuple of known pass or group names (a
    :class:`~itdeid.errors.ParameterError` naming the parameter)."""
    from itdeid.errors import ParameterError
    if not isinstance(value, (list, tuple)) or not all(isinstance(name, str) for name in value):
        raise ParameterError(f"skip_passes must be a list of pass names, got {value!r}")
    try:
        check_skip(value)
    except ValueError as error:
        raise ParameterError(f"skip_passes must name passes of the pipeline: {error}") from None


def saved_params(model, params: dict) -> dict:
    """``params`` as a model file keeps them: ``skip_passes`` only where some pass is off, so a
    model that skips none is written as before the parameter existed (and loads the same)."""
    if not params.get("skip_passes"):
        params.pop("skip_passes", None)
    else:
        params["skip_passes"] = list(params["skip_passes"])
    return params


def passes_on(model) -> frozenset[str]:
    """The groups ``model`` runs: those its switches turn on, those it learned lists for, and
    those its class always runs (``ALWAYS_PASSES``)."""
    on = set()
    if getattr(model, "join_gaps", False):
        on.add("name_gaps")
    if getattr(model, "subject_names", False):
        on.add("named_subjects")
    if getattr(model, "identifiers", False):
        on |= {"tag_review", "identifiers"}
        if hasattr(model, "seen_count"):
            on.add("note_slips")
    if getattr(model, "punctuation_left_out_", ()):
        on.add("phrase_punctuation")
    if getattr(model, "place_endings_left_out_", ()):
        on.add("place_endings")
    on |= set(getattr(model, "ALWAYS_PASSES", ()))
    return frozenset(on)


def switches(model, skip: Iterable[str] = ()) -> list[tuple[Group, Pass, bool]]:
    """(group, pass, whether it runs) for every pass, in order, for ``model`` with ``skip`` and
    the model's own ``skip_passes`` off."""
    on = passes_on(model)
    skip = check_skip(skip) | check_skip(getattr(model, "skip_passes", None) or ())
    return [(group, p, group.name in on and group.name not in skip and p.name not in skip)
            for group in PASSES for p in group.passes]


def run_note(note: Note, codes: np.ndarray, groups: Iterable[str], skip: frozenset[str] = frozenset()) -> np.ndarray:
    """``codes`` after the passes of ``groups`` (names), in the declared order, less ``skip``;
    a copy where any pass changes them."""
    groups = set(groups)
    copied = False
    for group in PASSES:
        if group.name not in groups or group.name in skip:
            continue
        if group.when_tagged and not np.any(codes):
            continue
        for p in group.passes:
            if p.name in skip:
                continue
            if not copied:
                codes, copied = np.array(codes, copy=True), True
            codes = p.apply(note, codes)
    return codes


def run_passes(model, docs: Sequence, codes: Sequence[np.ndarray], skip: Iterable[str] = ()) -> list[np.ndarray]:
    """Each tokenized note's codes after the passes ``model`` runs, less ``skip`` and the model's
    own ``skip_passes``."""
    from itdeid.featurize.tokenized import token_offsets
    skip = check_skip(skip) | check_skip(getattr(model, "skip_passes", None) or ())
    on = passes_on(model) - skip
    if not on:
        return list(codes)
    return [run_note(Note(td.document.text, *token_offsets(td), td=td, model=model), c, on, skip)
            for td, c in zip(docs, codes)]


def run_groups(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray,
               groups: Iterable[str], td=None, model=None) -> np.ndarray:
    """The passes of ``groups`` on one note given by its text and token offsets (what the tests
    and the one-group callers use)."""
    return run_note(Note(text, starts, ends, td=td, model=model), codes, groups)


def apply_identifiers(text: str, starts: np.ndarray, ends: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """The tag review and the identifier templates on one note, as a model with ``identifiers``
    runs them."""
    return run_groups(text, starts, ends, codes, ("tag_review", "identifiers"))


def join_gaps(td, codes: np.ndarray) -> np.ndarray:
    """The name-gap passes on one tokenized note, as a model with ``join_gaps`` runs them."""
    from itdeid.featurize.tokenized import token_offsets
    return run_groups(td.document.text, *token_offsets(td), codes, ("name_gaps",), td=td)


def describe(model=None, skip: Iterable[str] = ()) -> str:
    """The pipeline as text: the stages, then every pass in order with its purpose and, for a
    model, whether it runs (``itdeid pipeline`` prints it; README's list is this text)."""
    lines = ["Stages:"]
    lines += [f"  {k}. {name}: {what}" for k, (name, what) in enumerate(STAGES, 1)]
    lines.append("Passes, in order:")
    state = {p.name: on for _, p, on in switches(model, skip)} if model is not None else {}
    for group in PASSES:
        lines.append(f"  {group.name}: {group.purpose}")
        for p in group.passes:
            mark = "" if model is None else ("[on]  " if state[p.name] else "[off] ")
            lines.append(f"    - {mark}{p.name}: {p.purpose}")
    return "\n".join(lines) + "\n"
