"""The feature format (issue J): a model trained on other feature values is refused at load time
naming the command that retrains it, and the recorded format changes whenever the values do."""
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from itdeid.context_pass import stacked_columns
from itdeid.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.feature_format import FEATURE_FORMAT
from itdeid.featurize import GROUPS, RECALL_GROUPS, TRIAL_GROUPS, FeatureExtractor, tokenize_document
from itdeid.formats import read_corpus
from itdeid.model import TokenModel
from helpers import tiny_corpus

RECORD = Path(__file__).resolve().parent / "data" / "feature-fingerprint.json"
NOTES = RECORD.parent / "feature-fingerprint-notes.xml"


def fingerprint() -> dict:
    """A hash of every feature group's values (the paper's, issue G's and those on trial) and of
    the context stage's columns, on three annotated notes kept for this test alone (a copy of
    the sample notes with their gold, so an edit of samples/ does not move it): rounded to 4
    decimals, so only a change of value, not of the last bit of a logarithm, moves it."""
    docs = [tokenize_document(d) for d in sorted(read_corpus(NOTES), key=lambda d: d.id)]
    extractor = FeatureExtractor(groups=GROUPS + RECALL_GROUPS + TRIAL_GROUPS).fit(docs)
    X = extractor.transform(docs)
    stage = np.vstack([stacked_columns(td, np.linspace(0, 1, len(td) * 9, dtype=np.float32).reshape(len(td), 9))
                       for td in docs])
    digest = hashlib.sha256()
    for block in (X, stage):
        digest.update((np.round(block.astype(np.float64), 4) + 0.0).tobytes())
    return {"feature_format": FEATURE_FORMAT, "columns": extractor.feature_names_,
            "rows": int(X.shape[0]), "sha256": digest.hexdigest()}


def test_feature_values_are_those_recorded_for_this_format():
    now = fingerprint()
    recorded = json.loads(RECORD.read_text(encoding="utf-8"))
    assert now == recorded, (
        "feature values changed: models trained before would read other numbers. Raise "
        "FEATURE_FORMAT in itdeid/feature_format.py, retrain the shipped model (itdeid train "
        f"--preset default --out itdeid/models/default) and record the new fingerprint in {RECORD}: "
        + json.dumps({**now, "columns": "..."}))


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
    from itdeid.deidentifier import load_model
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
