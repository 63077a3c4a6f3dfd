"""A parameter changed between fit and predict or save is refused, naming it (itdeid.estimators.fitted_params);
the ones that act when tagging (threads, a threshold, the vote rule) may change."""
import pytest

from itdeid.estimators.deidentifier import Deidentifier

from itdeid.model_folder.load import load_model
from itdeid.errors import ParameterError
from itdeid.estimators.model import TokenModel

from helpers import tiny_corpus

PARAMS = dict(n_estimators=3, n_jobs=1)


@pytest.fixture(scope="module")
def corpus():
    return tiny_corpus(10, seed=3)


def test_a_token_model_changed_after_fit_neither_tags_nor_saves(corpus, tmp_path):
    """The changed window was saved beside the old features, and the folder refused as damaged."""
    model = TokenModel(**PARAMS).fit(corpus)
    spans = model.predict(corpus)
    model.set_params(window=1)
    for call in (lambda: model.predict(corpus), lambda: model.save(tmp_path / "m")):
        with pytest.raises(ParameterError, match=r"^window was changed after fit \(2 -> 1\)"):
            call()
    assert not (tmp_path / "m").exists()
    model.set_params(window=2, n_jobs=2, threshold=0.5)         # back, and tagging-time ones
    model.predict(corpus)
    model.set_params(threshold=None).save(tmp_path / "m")
    loaded = load_model(tmp_path / "m")
    assert loaded.predict(corpus) == spans
    with pytest.raises(ParameterError, match="^groups was changed"):
        loaded.set_params(groups=("basic",)).predict(corpus)
    loaded.fit(corpus)                                          # a new fit takes the new value
    loaded.predict(corpus)


def test_a_system_changed_after_fit_says_so(corpus):
    """iterations raised a bare KeyError; triggers relabelled the fitted models silently."""
    system = Deidentifier(iterations=1, harvest="gold", min_heading_tokens=3, model_params=PARAMS).fit(corpus)
    for change, name in ((dict(iterations=2), "iterations"),
                         (dict(triggers=("token", "ngram"), vote="recall_first"), "triggers")):
        with pytest.raises(ParameterError, match=f"^{name} was changed after fit"):
            system.set_params(**change).predict(corpus)
        system.set_params(iterations=1, triggers=("token", "phrase", "ngram"), vote="two_of_three")
    system.set_params(vote="recall_first").predict(corpus)      # itdeid deid --vote
    # the members' threads may change, as a token model's do (they were refused as a whole
    # dict), and a device added; any other entry added or changed is named
    system.set_params(model_params=dict(system.model_params, n_jobs=2, device="cpu")).predict(corpus)
    with pytest.raises(ParameterError, match=r"^model_params__bogus was changed after fit \('absent' -> 1\)"):
        system.set_params(model_params=dict(system.model_params, bogus=1)).predict(corpus)
    with pytest.raises(ParameterError, match=r"^model_params__n_estimators was changed after fit \(3 -> 9\)"):
        system.set_params(model_params=dict(system.model_params, n_estimators=9)).predict(corpus)
