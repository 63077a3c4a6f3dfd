"""itdeid.estimators.ensemble.InnerEnsemble: the inner fold models kept and averaged."""
import json

import numpy as np
import pytest

from itdeid.estimators.deidentifier import set_threshold

from itdeid.model_folder.load import load_model
from itdeid.estimators.ensemble import InnerEnsemble
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.estimators.model import TokenModel

from helpers import rewrite_state, tiny_corpus


@pytest.fixture(scope="module")
def fitted():
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=1, random_state=7)
    return docs, InnerEnsemble(base, folds=3, target_recall=0.9).fit(docs)


def test_one_member_a_fold_each_with_its_own_seed_and_no_threshold_of_its_own(fitted):
    _, model = fitted
    assert len(model.members_) == 3
    assert [m.random_state for m in model.members_] == [7, 8, 9]
    assert all(m.target_recall is None and m.threshold is None for m in model.members_)
    assert model.threshold_ is not None and 1e-3 <= model.threshold_ <= 0.5


def test_probabilities_are_the_mean_of_the_members(fitted):
    docs, model = fitted
    tds = [tokenize_document(d, gold=False) for d in docs[:3]]
    mean = model.predict_proba_tokenized(tds)
    each = [m.predict_proba_tokenized(tds) for m in model.members_]
    for j in range(3):
        assert np.allclose(mean[j], np.mean([e[j] for e in each], axis=0))
        assert np.allclose(mean[j].sum(axis=1), 1.0, atol=1e-5)


def test_a_lower_threshold_never_tags_fewer_tokens(fitted):
    docs, model = fitted
    tds = [tokenize_document(d, gold=False) for d in docs[:5]]
    high = sum(int((c != 0).sum()) for c in set_threshold(model, 0.5).predict_tokenized(tds))
    low = sum(int((c != 0).sum()) for c in set_threshold(model, 0.01).predict_tokenized(tds))
    set_threshold(model, None)
    assert low >= high


def test_save_and_load_give_the_same_spans(fitted, tmp_path):
    docs, model = fitted
    model.save(tmp_path / "m")
    again = load_model(tmp_path / "m")
    assert isinstance(again, InnerEnsemble) and again.threshold_ == model.threshold_
    assert again.predict(docs[:4]) == model.predict(docs[:4])


def test_a_tampered_member_list_is_one_line_naming_the_file(fitted, tmp_path):
    _, model = fitted
    model.save(tmp_path / "m")
    rewrite_state(tmp_path / "m", members=["../../etc"])
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")


def test_members_cannot_use_the_context_pass():
    with pytest.raises(ValueError, match="context_pass"):
        InnerEnsemble(TokenModel(context_pass=True, previous="none"), folds=2).fit(tiny_corpus(6))


@pytest.fixture(scope="module")
def stacked():
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", random_state=7)
    return docs, InnerEnsemble(base, folds=3, target_recall=0.9, context_pass=True).fit(docs)


def test_the_context_stage_is_one_model_a_fold_blended_with_the_mean(stacked):
    docs, model = stacked
    assert len(model.stage_) == len(model.members_) == 3
    tds = [tokenize_document(d, gold=False) for d in docs[:3]]
    blended = model.predict_proba_tokenized(tds)
    model.context_weight = 0.0
    try:
        mean = model.predict_proba_tokenized(tds)
    finally:
        model.context_weight = 0.5
    each = [m.predict_proba_tokenized(tds) for m in model.members_]
    for j in range(3):
        assert np.allclose(mean[j], np.mean([e[j] for e in each], axis=0))
        assert np.allclose(blended[j].sum(axis=1), 1.0, atol=1e-5)
    # the stage moves the probabilities somewhere (it is not the mean again)
    assert any(not np.allclose(b, m) for b, m in zip(blended, mean))


def test_a_stacked_ensemble_saves_and_loads_with_its_stage(stacked, tmp_path):
    docs, model = stacked
    model.save(tmp_path / "m")
    assert sorted(p.name for p in (tmp_path / "m").iterdir() if p.name.startswith("context-")) == \
        ["context-0", "context-1", "context-2"]
    again = load_model(tmp_path / "m")
    assert len(again.stage_) == 3 and again.context_pass
    tds = [tokenize_document(d, gold=False) for d in docs[:4]]
    for a, b in zip(again.predict_proba_tokenized(tds), model.predict_proba_tokenized(tds)):
        assert np.allclose(a, b, atol=1e-6)


def test_a_refitted_stage_is_one_model_with_the_same_threshold_data_and_saves(stacked, tmp_path):
    docs, folded = stacked
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", random_state=7)
    model = InnerEnsemble(base, folds=3, target_recall=0.9, context_pass=True, stage_refit=True).fit(docs)
    assert len(model.stage_) == 1 and len(model.members_) == 3
    # the threshold still comes from the per-fold stage models' out-of-fold probabilities
    assert np.array_equal(model.calibration_[0], folded.calibration_[0])
    assert model.threshold_ == folded.threshold_
    model.save(tmp_path / "m")
    assert [p.name for p in (tmp_path / "m").iterdir() if p.name.startswith("context-")] == ["context-0"]
    again = load_model(tmp_path / "m")
    assert again.stage_refit and len(again.stage_) == 1
    tds = [tokenize_document(d, gold=False) for d in docs[:4]]
    refit = model.predict_proba_tokenized(tds)
    for a, b in zip(again.predict_proba_tokenized(tds), refit):
        assert np.allclose(a, b, atol=1e-6)
    # and it is not the per-fold stages' mean
    assert any(not np.allclose(a, b) for a, b in zip(refit, folded.predict_proba_tokenized(tds)))


def test_a_screen_of_zero_is_the_full_ensemble_and_a_screen_keeps_member_zero_elsewhere(stacked, tmp_path,
                                                                                        monkeypatch):
    """screen (issue I): with 0 every token goes on, bit for bit the full ensemble; with a
    screen, a token no member-0 probability near it reaches keeps member 0's probabilities, a
    token near one gets the full ensemble's, and each note's result is its own (no reach across
    notes)."""
    from itdeid.estimators.ensemble import SCREEN_REACH
    docs, model = stacked
    tds = [tokenize_document(d, gold=False) for d in docs[:6]]
    full = model.predict_proba_tokenized(tds)
    model.context_weight = 0.0
    full_mean = model.predict_proba_tokenized(tds)
    model.context_weight = 0.5
    try:
        model.screen = 0.0
        for a, b in zip(model.predict_proba_tokenized(tds), full):
            np.testing.assert_array_equal(a, b)
        model.screen = 1.5
        with pytest.raises(ValueError, match="screen must be"):
            model.predict_proba_tokenized(tds)
        first = model.members_[0].predict_proba_tokenized(tds)
        # these 5-tree models rate no token below about 0.09, so the screen's margin under the
        # threshold is lifted here (the margin itself is checked below)
        monkeypatch.setattr("itdeid.estimators.ensemble.SCREEN_MARGIN", 1)
        model.threshold = 0.9
        screen = float(np.quantile(np.concatenate([1 - f[:, 0] for f in first]), 0.8))
        model.screen = screen
        screened = model.predict_proba_tokenized(tds)
        alone = [model.predict_proba_tokenized([td])[0] for td in tds]
        model.context_weight = 0.0
        mean = model.predict_proba_tokenized(tds)
        model.context_weight = 0.5
        model.save(tmp_path / "m")
        assert load_model(tmp_path / "m").screen == screen
        # a screen above a tenth of the threshold acts as that tenth
        monkeypatch.setattr("itdeid.estimators.ensemble.SCREEN_MARGIN", 10)
        model.threshold = min(1.0, 10 * screen)
        model.screen = 0.95
        high = model.predict_proba_tokenized(tds)
        model.screen = model.threshold / 10
        for a, b in zip(high, model.predict_proba_tokenized(tds)):
            np.testing.assert_array_equal(a, b)
    finally:
        model.screen, model.context_weight, model.threshold = None, 0.5, None
    skipped = near = 0
    for f, s, a, m, fm in zip(first, screened, alone, mean, full_mean):
        np.testing.assert_array_equal(s, a)
        hit = np.flatnonzero(1 - f[:, 0] >= screen)
        reached = np.zeros(len(f), dtype=bool)
        for i in hit:
            reached[max(0, i - SCREEN_REACH):i + SCREEN_REACH + 1] = True
        np.testing.assert_allclose(m[~reached], f[~reached], rtol=1e-6)
        np.testing.assert_array_equal(m[reached], fm[reached])
        skipped += int((~reached).sum())
        near += int(reached.sum())
    assert skipped and near


def test_screen_rounds_give_member_zero_all_its_trees_only_where_its_first_rounds_rate_the_token(
        stacked, tmp_path, monkeypatch):
    """screen_rounds (issue I): member 0's first rounds judge every token; a token they rate
    at a tenth of the screen or more gets all of its trees, the others keep that first look;
    as many rounds as the trees have is the plain screen bit for bit; the setting is saved."""
    from itdeid.estimators.ensemble import SCREEN_REACH
    docs, model = stacked
    tds = [tokenize_document(d, gold=False) for d in docs[:6]]
    lead = model.members_[0]
    X = lead.extractor_.transform(tds)
    whole, look = lead.learner_.predict_proba(X), lead.learner_.predict_proba(X, 2)
    assert not np.allclose(whole, look)                 # two of five rounds: another answer
    np.testing.assert_array_equal(lead.learner_.predict_proba(X, 5), whole)
    np.testing.assert_array_equal(lead.learner_.predict_proba(X, 50), whole)
    monkeypatch.setattr("itdeid.estimators.ensemble.SCREEN_MARGIN", 1)   # 5-tree models: see the test above
    p_look = 1 - look[:, 0]
    levels = np.unique(p_look)                          # a screen between two of its levels
    screen = float(levels[len(levels) // 2 - 1] + levels[len(levels) // 2]) / 2
    try:
        model.threshold, model.screen = 0.9, screen
        plain = model.predict_proba_tokenized(tds)
        model.screen_rounds = 5
        for a, b in zip(model.predict_proba_tokenized(tds), plain):
            np.testing.assert_array_equal(a, b)
        model.screen_rounds = 2
        model.context_weight = 0.0
        mean = np.concatenate(model.predict_proba_tokenized(tds))
        model.context_weight = 0.5
        model.save(tmp_path / "m")
        assert load_model(tmp_path / "m").screen_rounds == 2
        for bad in (0, 1.5, True):
            model.screen_rounds = bad
            with pytest.raises(ValueError, match="screen_rounds must be"):
                model.predict_proba_tokenized(tds)
        model.screen, model.screen_rounds = None, 2
        with pytest.raises(ValueError, match="screen_rounds needs a screen"):
            model.check_params()
    finally:
        model.screen = model.screen_rounds = model.threshold = None
        model.context_weight = 0.5
    first = np.where((p_look >= screen)[:, None], whole, look)   # what the screen then reads
    hit = 1 - first[:, 0] >= screen
    reached = np.zeros(len(first), dtype=bool)
    cuts = np.cumsum([len(td) for td in tds])[:-1]
    for part, at in zip(np.split(hit, cuts), np.split(np.arange(len(first)), cuts)):
        for i in np.flatnonzero(part):
            reached[at[max(0, i - SCREEN_REACH):i + SCREEN_REACH + 1]] = True
    assert (~reached).any() and (p_look < screen).any() and (p_look >= screen).any()
    np.testing.assert_allclose(mean[~reached], first[~reached], rtol=1e-6)


def test_screen_reach_sets_how_many_tokens_go_on_with_one_that_passes(stacked, monkeypatch):
    """screen_reach (issue I): None is SCREEN_REACH; 0 sends on the tokens that pass alone, so
    every other token keeps member 0's probabilities; a bad value is refused."""
    from itdeid.estimators.ensemble import SCREEN_REACH
    docs, model = stacked
    tds = [tokenize_document(d, gold=False) for d in docs[:6]]
    first = np.concatenate(model.members_[0].predict_proba_tokenized(tds))
    monkeypatch.setattr("itdeid.estimators.ensemble.SCREEN_MARGIN", 1)   # 5-tree models: see above
    levels = np.unique(1 - first[:, 0])
    screen = float(levels[len(levels) // 2 - 1] + levels[len(levels) // 2]) / 2
    try:
        model.threshold, model.screen, model.context_weight = 0.9, screen, 0.0
        default = model.predict_proba_tokenized(tds)
        model.screen_reach = SCREEN_REACH
        for a, b in zip(model.predict_proba_tokenized(tds), default):
            np.testing.assert_array_equal(a, b)
        model.screen_reach = 0
        alone = np.concatenate(model.predict_proba_tokenized(tds))
        for bad in (-1, 1.5, True):
            model.screen_reach = bad
            with pytest.raises(ValueError, match="screen_reach must be"):
                model.predict_proba_tokenized(tds)
    finally:
        model.screen = model.screen_reach = model.threshold = None
        model.context_weight = 0.5
    passed = 1 - first[:, 0] >= screen
    assert passed.any() and (~passed).any()
    np.testing.assert_allclose(alone[~passed], first[~passed], rtol=1e-6)
    assert not np.allclose(np.concatenate(default)[~passed], first[~passed])   # reach 3 differs


def test_a_screen_needs_members_that_tag_every_token_at_once():
    docs = tiny_corpus(12, seed=5)
    base = TokenModel(n_estimators=3, n_jobs=1, previous="gold", random_state=1)
    with pytest.raises(ValueError, match="previous='none'"):      # refused at fit, not at tagging
        InnerEnsemble(base, folds=2, target_recall=0.9, screen=0.01).fit(docs)
    model = InnerEnsemble(base, folds=2, target_recall=0.9).fit(docs)
    model.screen = 0.01                                           # set after fitting: at tagging
    with pytest.raises(ValueError, match="previous='none'"):
        model.predict_proba_tokenized([tokenize_document(d, gold=False) for d in docs[:2]])


def test_a_stage_list_that_disagrees_with_context_pass_is_one_line_naming_the_file(stacked, tmp_path):
    _, model = stacked
    model.save(tmp_path / "m")
    state_file = tmp_path / "m" / "ensemble.json"
    state = json.loads(state_file.read_text())
    state["stage"] = []
    state_file.write_text(json.dumps(state))
    with pytest.raises(UserError, match="ensemble.json"):
        InnerEnsemble.load(tmp_path / "m")


def test_stage_labels_share_the_stage_phi_as_the_mean_shares_its_own():
    from itdeid.estimators.context_pass import stage_labels
    mean = np.zeros((3, 9), dtype=np.float32)
    mean[0, [0, 1, 5]] = [0.6, 0.3, 0.1]   # PHI mass 0.4, three quarters PATIENT's
    mean[1, 0] = 1.0                      # no PHI mass: shared evenly
    mean[2, [0, 2]] = [0.5, 0.5]
    out = stage_labels(np.array([0.8, 0.4, 0.0]), mean)
    assert np.allclose(out.sum(axis=1), 1.0)
    assert np.allclose(out[0, [0, 1, 5]], [0.2, 0.6, 0.2]) and np.allclose(out[1, 1:], 0.05)
    assert np.allclose(out[2], np.eye(9)[0])


def test_the_threshold_is_chosen_on_the_documents_calibrate_on_flags(monkeypatch):
    """Synthetic notes may train the members without setting the operating point."""
    import itdeid.estimators.ensemble as ensemble
    seen = []
    real = ensemble.threshold_for_recall

    def spy(proba, labels, target):
        seen.append(len(labels))
        return real(proba, labels, target)
    monkeypatch.setattr(ensemble, "threshold_for_recall", spy)
    docs = tiny_corpus(12, seed=4)
    flags = [i % 3 == 0 for i in range(len(docs))]
    base = TokenModel(n_estimators=3, n_jobs=1, previous="none", random_state=7)
    InnerEnsemble(base, folds=2, target_recall=0.9).fit(docs, calibrate_on=flags)
    assert seen == [sum(len(tokenize_document(d).tokens) for d, f in zip(docs, flags) if f)]
    with pytest.raises(UserError, match="calibrate_on"):
        InnerEnsemble(base, folds=2, target_recall=0.9).fit(docs, calibrate_on=[False] * len(docs))
    with pytest.raises(ValueError, match="one flag a document"):
        InnerEnsemble(base, folds=2, target_recall=0.9).fit(docs, calibrate_on=[True])


def test_the_threshold_is_read_off_the_kept_calibration_data_which_is_never_saved(fitted, tmp_path):
    import math
    from itdeid.estimators.operating_point import MAX_THRESHOLD, MIN_THRESHOLD
    _, model = fitted
    p_phi, gold = model.calibration_
    assert p_phi.shape == gold.shape and gold.any()
    ranked = np.sort(p_phi[gold])[::-1]
    expected = ranked[max(1, math.ceil(model.target_recall * len(ranked) - 1e-9)) - 1]
    assert model.threshold_ == pytest.approx(float(np.clip(expected, MIN_THRESHOLD, MAX_THRESHOLD)), rel=1e-6)
    model.save(tmp_path / "m")
    assert not hasattr(InnerEnsemble.load(tmp_path / "m"), "calibration_")


def test_draws_are_whole_ensembles_with_their_own_seeds_averaged_out_of_fold(tmp_path):
    from itdeid.estimators.folds import inner_split
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=1, random_state=7)
    model = InnerEnsemble(base, folds=3, target_recall=0.9, draws=2).fit(docs)
    # draw 0 is the single-draw ensemble (seeds 7, 8, 9); no two members share a seed
    assert [m.random_state for m in model.members_] == [7, 8, 9, 10, 11, 12]
    fold, k = inner_split(docs, 3)
    tds = [tokenize_document(d) for d in docs]
    expected = [None] * len(docs)
    for f in range(k):
        test = [i for i in range(len(docs)) if fold[i] == f]
        a, b = (model.members_[3 * d + f].predict_proba_tokenized([tds[i] for i in test]) for d in range(2))
        for j, i in enumerate(test):
            expected[i] = 1.0 - (a[j][:, 0] + b[j][:, 0]) / 2
    assert np.allclose(model.calibration_[0], np.concatenate(expected), atol=1e-6)
    model.save(tmp_path / "m")
    again = load_model(tmp_path / "m")
    assert again.draws == 2 and len(again.members_) == 6
    assert again.predict(docs[:4]) == model.predict(docs[:4])
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="draws"):
            InnerEnsemble(base, folds=3, draws=bad).fit(docs)


def test_each_draw_has_its_own_context_stage_reading_its_own_members(tmp_path):
    """Tagging is the mean of the draws' blends, each draw's stage reading its members' mean."""
    from itdeid.estimators.context_pass import stacked_columns
    from itdeid.estimators.context_pass import stage_labels
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=1, random_state=7)
    model = InnerEnsemble(base, folds=3, target_recall=0.9, draws=2, context_pass=True,
                          stage_refit=True).fit(docs)
    assert len(model.stage_) == 2
    tds = [tokenize_document(d, gold=False) for d in docs[:3]]
    blends = []
    for d in range(2):
        each = [m.predict_proba_tokenized(tds) for m in model.members_[3 * d:3 * d + 3]]
        mean = [np.mean([e[j] for e in each], axis=0) for j in range(len(tds))]
        p_phi = [1.0 - model.stage_[d].predict_proba(stacked_columns(td, p))[:, 0] for td, p in zip(tds, mean)]
        blends.append([model.blend_passes(m, stage_labels(q, m)) for m, q in zip(mean, p_phi)])
    got = model.predict_proba_tokenized(tds)
    for j in range(len(tds)):
        assert np.allclose(got[j], (blends[0][j] + blends[1][j]) / 2, atol=1e-6)
    model.save(tmp_path / "m")
    again = load_model(tmp_path / "m")
    assert len(again.stage_) == 2 and again.predict(docs[:4]) == model.predict(docs[:4])
    state = json.loads((tmp_path / "m" / "ensemble.json").read_text())
    state["params"]["draws"] = 4                # 6 members and 2 stage models are not 4 draws
    (tmp_path / "m" / "ensemble.json").write_text(json.dumps(state))
    with pytest.raises(UserError, match="ensemble.json.*draws"):
        load_model(tmp_path / "m")
    state["params"]["draws"] = 2
    (tmp_path / "m" / "ensemble.json").write_text(json.dumps(state))
    screened = load_model(tmp_path / "m")
    screened.screen = 0.0           # a screen of 0 passes every token: the full ensemble
    for a, b in zip(screened.predict_proba_tokenized(tds), got):
        assert np.allclose(a, b, atol=1e-6)


def test_the_members_mean_out_of_fold_is_kept_beside_the_blend():
    """calibration_first_: the members' mean alone, so that the blend can be recomputed at
    another context weight (experiments/thresholds.py)."""
    docs = tiny_corpus(30, seed=4)
    base = TokenModel(n_estimators=5, n_jobs=1, previous="none", resubstitutions=1, random_state=7)
    model = InnerEnsemble(base, folds=3, target_recall=0.9, context_pass=True).fit(docs)
    blend, _ = model.calibration_
    first = model.calibration_first_
    assert first.shape == blend.shape and not np.allclose(first, blend)
    stage = (blend - (1 - model.context_weight) * first) / model.context_weight
    assert stage.min() >= -1e-5 and stage.max() <= 1 + 1e-5


def test_the_documented_default_base_none_is_a_token_model():
    """``base=None`` is documented as ``TokenModel()`` and was refused at fit (by check_params,
    which fit calls first; fitting the default members' 200 trees is left out for time)."""
    ensemble = InnerEnsemble(folds=2, target_recall=0.9).set_params(base=None)
    ensemble.check_params()
    assert ensemble._member(1).get_params() == TokenModel(random_state=1).set_params(
        target_recall=None, identifiers=False).get_params()
    with pytest.raises(ValueError, match="base must be a TokenModel or None, got str"):
        InnerEnsemble(base="xgboost").fit(tiny_corpus(8, seed=1))


def test_a_refit_keeps_nothing_of_the_first_fit_and_a_loaded_model_has_the_saved_params(tmp_path):
    """calibration_first_ of a fit with the stage stayed after a refit without it; a loaded
    model's groups came back a list."""
    import sklearn.base
    base = TokenModel(n_estimators=3, n_jobs=1, previous="none")
    ensemble = InnerEnsemble(base, folds=2, target_recall=0.9, context_pass=True).fit(tiny_corpus(10, seed=2))
    assert hasattr(ensemble, "calibration_first_")
    ensemble.set_params(context_pass=False).fit(tiny_corpus(10, seed=3))
    assert not hasattr(ensemble, "calibration_first_")
    ensemble.save(tmp_path / "m")
    loaded = load_model(tmp_path / "m")
    assert isinstance(loaded.members_[0].groups, tuple)
    assert loaded.members_[0].get_params() == ensemble.members_[0].get_params()
    assert sklearn.base.clone(loaded).get_params()["base__groups"] == base.groups


def test_too_few_notes_and_a_bad_target_are_said_in_the_users_terms():
    """Two notes gave '1 training document cannot be split' (a member's count), and a target
    recall of 1.5 was called a threshold."""
    base = TokenModel(n_estimators=3, n_jobs=1, previous="none")
    with pytest.raises(UserError, match="^2 training documents are too few for an ensemble of 2 members"):
        InnerEnsemble(base, folds=5, target_recall=0.9).fit(tiny_corpus(2, seed=1))
    with pytest.raises(ValueError, match=r"^target_recall must be a number in \(0, 1\], got 1.5"):
        InnerEnsemble(base, target_recall=1.5).fit(tiny_corpus(4, seed=1))


def test_fewer_patients_than_members_asked_is_said(caplog):
    """--members 20 on 8 patients gave 8 members without a word."""
    from itdeid.document import Document
    docs = [Document(d.id, d.text, d.spans, patient=f"p{i % 3}") for i, d in enumerate(tiny_corpus(9, seed=1))]
    base = TokenModel(n_estimators=3, n_jobs=1, previous="none")
    with caplog.at_level("WARNING", logger="itdeid.estimators.ensemble"):
        ensemble = InnerEnsemble(base, folds=5, target_recall=0.9).fit(docs)
    assert len(ensemble.members_) == 3
    assert "3 members instead of the 5 asked: the training notes have 3 patients" in caplog.text
