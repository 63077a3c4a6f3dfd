"""The feature format (issue J): a model trained on other feature values is refused at load time
naming the command that retrains it, and the recorded format changes whenever the values do."""
import json
from pathlib import Path

import numpy as np
import pytest

from itdeid.estimators.context_pass import stacked_columns
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.featurize.feature_format import FEATURE_FORMAT
from itdeid.featurize import GROUPS, RECALL_GROUPS, TRIAL_GROUPS, FeatureExtractor, tokenize_document
from itdeid.formats import read_corpus
from itdeid.estimators.model import TokenModel
from helpers import tiny_corpus

RECORD = Path(__file__).resolve().parent / "data" / "feature-fingerprint.json"
NOTES = RECORD.parent / "feature-fingerprint-notes.xml"


def _columns(block: np.ndarray) -> dict:
    """Two numbers a column, each to 9 significant digits: its sum, and its sum weighted by the
    row's position (so values moved between rows count too)."""
    block = block.astype(np.float64)
    weights = np.arange(1, block.shape[0] + 1, dtype=np.float64) / block.shape[0]
    return {"sums": [float(f"{v:.9g}") for v in block.sum(axis=0)],
            "weighted": [float(f"{v:.9g}") for v in weights @ block]}


def fingerprint() -> dict:
    """Every feature group's values (the paper's, issue G's and those on trial) and the context
    stage's columns, on three annotated notes kept for this test alone (a copy of the sample
    notes with their gold, so an edit of samples/ does not move it), summed by column. Compared
    within a relative 1e-6: a changed value moves a column's sums far more, while the last bits
    of a logarithm, which differ between processors' vector instructions, do not (a hash of the
    values rounded to 4 decimals flipped on one such bit)."""
    docs = [tokenize_document(d) for d in sorted(read_corpus(NOTES), key=lambda d: d.id)]
    extractor = FeatureExtractor(groups=GROUPS + RECALL_GROUPS + TRIAL_GROUPS).fit(docs)
    X = extractor.transform(docs)
    stage = np.vstack([stacked_columns(td, np.linspace(0, 1, len(td) * 9, dtype=np.float32).reshape(len(td), 9))
                       for td in docs])
    return {"feature_format": FEATURE_FORMAT, "columns": extractor.feature_names_,
            "rows": int(X.shape[0]), "features": _columns(X), "stage": _columns(stage)}


def _differing(now: dict, recorded: dict) -> list[str]:
    """The names of the columns whose sums differ beyond the tolerance."""
    names = {"features": now["columns"], "stage": [f"stage column {k}" for k in range(len(now["stage"]["sums"]))]}
    found = []
    for block in ("features", "stage"):
        for kind in ("sums", "weighted"):
            a, b = np.array(now[block][kind]), np.array(recorded[block][kind])
            if a.shape != b.shape:
                return [f"{block}: {len(a)} columns, {len(b)} recorded"]
            far = ~np.isclose(a, b, rtol=1e-6, atol=1e-6)
            found += [names[block][k] for k in np.flatnonzero(far) if names[block][k] not in found]
    return found


def test_feature_values_are_those_recorded_for_this_format():
    now = fingerprint()
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    same = {k: now[k] == recorded.get(k) for k in ("feature_format", "columns", "rows")}
    differing = _differing(now, recorded) if all(same.values()) else []
    assert all(same.values()) and not differing, (
        "feature values changed: models trained before would read other numbers. Raise "
        "FEATURE_FORMAT in itdeid/featurize/feature_format.py, retrain the shipped model (itdeid train "
        f"--preset default --out itdeid/models/default) and record the new values in {RECORD} "
        f"(python tests/test_feature_format.py --record). Differs: {[k for k, v in same.items() if not v]}"
        f" {differing[:10]}")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models")
    docs = tiny_corpus(30)
    TokenModel(n_estimators=3, n_jobs=1).fit(docs).save(folder / "token")
    InnerEnsemble(TokenModel(n_estimators=3, n_jobs=1, previous="none"), folds=2).fit(docs).save(folder / "ensemble")
    return folder


@pytest.mark.parametrize("kind,state", [("token", "model.json"), ("ensemble", "ensemble.json"),
                                        ("ensemble", "member-1/model.json")])
@pytest.mark.parametrize("value", [None, 0, FEATURE_FORMAT + 1, "1"])
def test_a_model_of_another_feature_format_is_refused_naming_the_retrain_command(saved, tmp_path, kind,
                                                                                 state, value):
    import shutil
    from itdeid.model_folder.load import load_model
    folder = tmp_path / kind
    shutil.copytree(saved / kind, folder)
    load_model(folder)                                   # as saved: this code's format
    path = folder / state
    data = json.loads(path.read_text())
    assert data["feature_format"] == FEATURE_FORMAT
    if value is None:
        del data["feature_format"]                       # written before formats were recorded
    else:
        data["feature_format"] = value
    path.write_text(json.dumps(data))
    said = "damaged model state .feature_format '1' is not a whole number" if value == "1" \
        else "the model .*feature format.*itdeid train"
    with pytest.raises(UserError, match=f"{state}: {said}"):
        load_model(folder)


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--record"]:
        RECORD.write_text(json.dumps(fingerprint(), indent=0) + "\n", encoding="utf-8")
        print(f"recorded {RECORD}")
