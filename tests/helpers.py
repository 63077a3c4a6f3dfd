"""Small seeded corpora for tests that train models (fast, no shared data needed)."""
from __future__ import annotations

import random
import runpy
import sys
from pathlib import Path

from itdeid.document import Document, Span

FIRST = ["John", "Mary", "Alan", "Ruth", "Peter", "Linda", "Oscar", "Nina", "Hugo", "Clara"]
LAST = ["Walker", "Norris", "Fenton", "Quincy", "Barlow", "Ingram", "Dalton", "Marsh", "Keller", "Tobin"]
HOSPITALS = ["Lakeside General Hospital", "Mercy Medical Center", "Northgate Hospital", "Elm Clinic"]
CITIES = ["Boston", "Denver", "Chicago", "Dallas"]


def tiny_corpus(n: int = 40, seed: int = 0) -> list[Document]:
    """Notes built piece by piece so gold offsets are exact; two notes per patient."""
    rng = random.Random(seed)
    docs = []
    for i in range(n):
        pieces: list[tuple[str, str | None]] = []
        doctor = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        patient = f"{rng.choice(LAST).upper()} , {rng.choice(FIRST).upper()}"
        date = f"{rng.randint(1, 12)}/{rng.randint(1, 28)}/{rng.choice(['01', '02', '2003'])}"
        pieces += [("Patient : ", None), (patient, "PATIENT"), ("\nAttending : ", None), (doctor, "DOCTOR"),
                   ("\nHISTORY OF PRESENT ILLNESS :\nThe patient was seen at ", None),
                   (rng.choice(HOSPITALS), "HOSPITAL"), (" on ", None), (date, "DATE"),
                   (f" with {rng.choice(['chest pain', 'fever', 'cough'])} . She lives in ", None),
                   (rng.choice(CITIES), "LOCATION"), (" . Take aspirin 81 mg daily for 2-3 weeks .\n"
                                                      "Call ", None),
                   (f"555-{rng.randint(100, 999)}-{rng.randint(1000, 9999)}", "PHONE"),
                   (" with questions . Seen by Dr. ", None), (doctor, "DOCTOR"),
                   (" .\nMRN : ", None), (str(rng.randint(10 ** 7, 10 ** 8 - 1)), "ID"), ("\n", None)]
        text, spans = "", []
        for piece, kind in pieces:
            if kind:
                spans.append(Span(len(text), len(text) + len(piece), kind))
            text += piece
        docs.append(Document(f"n{i}", text, spans, patient=f"p{i // 2}"))
    return docs


def convention_ensemble(note, seed: int):
    """An ensemble of two tiny members fitted on :func:`tiny_corpus` notes, each with
    ``note(i, whole)`` appended: the even notes (flagged as the corpus's own, ``calibrate_on``)
    written one way (``whole=False``), the odd ones (the synthetic records' place) the other.
    Returns the model, the notes and the flags (for the learned gold conventions)."""
    from itdeid.estimators.ensemble import InnerEnsemble
    from itdeid.estimators.model import TokenModel
    docs, own = [], []
    for i, doc in enumerate(tiny_corpus(16, seed=seed)):
        added = note(i, i % 2 == 1)
        shift = len(doc.text)
        docs.append(Document(doc.id, doc.text + added.text, list(doc.spans) + [
            Span(s.start + shift, s.end + shift, s.type) for s in added.spans], patient=doc.patient))
        own.append(i % 2 == 0)
    model = InnerEnsemble(TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=0,
                                     random_state=3), folds=2, target_recall=0.9)
    return model.fit(docs, calibrate_on=own), docs, own


def tagged_after_decisions(model, text: str, tagged: range, code: int) -> list[int]:
    """The codes ``model`` gives the tokens of ``text`` when its trees tag the tokens ``tagged``
    as ``code`` and nothing else, with only its learned conventions after the decisions."""
    import numpy as np

    from itdeid.document import LABELS
    from itdeid.featurize import tokenize_document
    td = tokenize_document(Document("t", text, []), gold=False)
    proba = np.zeros((len(td), len(LABELS)), dtype=np.float32)
    proba[:, 0] = 1.0
    proba[tagged.start:tagged.stop] = np.eye(len(LABELS))[code]
    model.predict_proba_tokenized = lambda docs: [proba]
    model.set_params(identifiers=False, join_gaps=False, subject_names=False)
    return model.predict_tokenized([td])[0].tolist()


def cleared_by(rule, text: str, tagged, code: int) -> tuple[list[str], list[str]]:
    """The tagged words (``tagged``: token texts, each tagged ``code``) that the clearing rule
    ``rule(text, starts, ends, codes)`` clears, and those the whole of
    :func:`itdeid.passes.identifiers.apply_identifiers` clears, each sorted."""
    import numpy as np

    from itdeid.featurize import tokenize_document
    from itdeid.featurize.tokenized import token_offsets
    from itdeid.pipeline import apply_identifiers
    td = tokenize_document(Document("n", text, []), gold=False)
    codes = np.array([code if t.text in tagged else 0 for t in td.tokens], dtype=np.int64)
    starts, ends = token_offsets(td)
    by_rule = sorted(td.tokens[k].text for k in rule(text, starts, ends, codes))
    after = apply_identifiers(text, starts, ends, codes)
    return by_rule, sorted(t.text for t, c, o in zip(td.tokens, after, codes) if o and not c)


def rewrite_state(folder, name: str = "ensemble.json", **changes) -> None:
    """Rewrite the JSON state file ``name`` of a saved model folder with ``changes`` (a key whose
    value is None is removed: a file saved before the key existed)."""
    import json
    from pathlib import Path
    path = Path(folder) / name
    state = json.loads(path.read_text())
    for key, value in changes.items():
        if value is None:
            state.pop(key, None)
        else:
            state[key] = value
    path.write_text(json.dumps(state))


#: experiments/, whose scripts the tests load.
EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def script_functions(name: str, run_name: str = "<run_path>") -> dict:
    """The names experiments/NAME defines (its main not run unless ``run_name`` is
    ``"__main__"``), loaded as ``python experiments/NAME`` loads it: experiments/ first on
    ``sys.path`` (where ``from common import ...`` finds the scripts' shared module), itdeid
    imported as installed. ``sys.path`` is taken back afterwards."""
    path = list(sys.path)
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        return runpy.run_path(str(EXPERIMENTS / name), run_name=run_name)
    finally:
        sys.path[:] = path


def tiny_model_folder(tmp_path_factory, name: str) -> Path:
    """A small TokenModel (5 trees over 30 tiny notes) saved in a fresh folder, as the Python
    API saves one: with no SHA256SUMS, so a run over it warns of that."""
    from itdeid.estimators.model import TokenModel
    folder = tmp_path_factory.mktemp(name) / "model"
    TokenModel(n_estimators=5, n_jobs=1).fit(tiny_corpus(30)).save(folder)
    return folder


def deid_with(model, *args) -> int:
    """``itdeid deid ARGS --workers 1 --model MODEL`` in this process; its exit status."""
    from itdeid.cli import main
    return main(["deid", *map(str, args), "--workers", "1", "--model", str(model)])

