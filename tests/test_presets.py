"""Training recipes: the corpus they assemble, the model card, and a clear error without data."""
import pytest

from itdeid import presets
from itdeid.deidentifier import Deidentifier
from itdeid.errors import UserError


@pytest.fixture
def tiny_preset(monkeypatch):
    monkeypatch.setitem(presets.PRESETS, "tiny", dict(
        synthetic_records=12, synthetic_seed=1, physionet=False,
        system=dict(iterations=1, vote="two_of_three", random_state=0)))
    return "tiny"


def test_preset_trains_and_writes_a_model_card(tiny_preset, tmp_path, monkeypatch):
    monkeypatch.chdir(presets.Path(__file__).resolve().parent.parent)   # the checkout: heldout notes
    out = tmp_path / "model"
    presets.train_preset(tiny_preset, out, model_params={"n_estimators": 3, "n_jobs": 1})
    model = Deidentifier.load(out)
    assert model.iterations == 1
    card = (out / "MODEL_CARD.md").read_text()
    assert "12 records from `itdeid synth --records 12 --seed 1`" in card
    assert "held-out" in card and "token_8way" in card            # scored on the 12 hand-written notes
    assert "- machine:" in card and "- code: itdeid" in card


def test_corpora_keep_patients_apart(tiny_preset):
    documents, data = presets.preset_corpus(tiny_preset)
    assert all(d.patient.startswith("synth-") for d in documents) and set(data) == {"synthetic"}


def test_default_preset_needs_physionet(tmp_path):
    with pytest.raises(UserError, match="no PhysioNet deid split"):
        presets.preset_corpus("default", tmp_path)
    with pytest.raises(UserError, match="unknown preset"):
        presets.preset_corpus("nope")


def test_default_preset_reads_the_shared_split(physionet_dir):
    documents, data = presets.preset_corpus("default", physionet_dir)
    assert sum(d.patient.startswith("physionet-") for d in documents) == 1422
    assert "GPL 2.0" in data["physionet"]
