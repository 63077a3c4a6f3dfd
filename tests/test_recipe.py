"""Issue G, item 6: the recommended recipe (itdeid.training.recipe) over the HIPAA-kinds test corpus.

The recipe is trained on a small synthetic corpus (no e-mail, URL, IP, VIN, ... in it) and run
on notes holding several examples of every HIPAA Safe Harbor identifier kind that occurs in
text (tests/hipaa_kinds.py). The fixed-shape kinds must all be found; the learned kinds (names,
towns, counties, hospitals) depend on what the training notes teach.
"""
import pytest

from itdeid.document import Document
from itdeid.training.recipe import MEMBER, recipe_model
from itdeid.synth import generate

from hipaa_kinds import LEARNED, hipaa_corpus


@pytest.fixture(scope="module")
def missed():
    # half nursing notes: a name after a relation word ("Daughter Siobhan") is nursing-note
    # matter that discharge summaries rarely show (trained on these 30 summaries alone, the
    # recipe left that name just under its threshold, P(PHI) 0.33 against 0.37; with half
    # nursing notes it found every learned kind for training seeds 3, 5, 7 x model seeds 0, 1)
    # the recipe scaled down to 30 detector trees, its class models with it (the recipe's 50
    # against 400: 4 against 30). Left at 50 while the detectors had 30, the class models
    # dominated the class columns the context stage reads, and one name fell under the
    # threshold (P(PHI) 0.25 against 0.37; session 19)
    trees = 30
    typer = max(1, round(trees * MEMBER["typer_estimators"] / MEMBER["n_estimators"]))
    model = recipe_model(n_estimators=trees, typer_estimators=typer, n_jobs=1).fit(
        generate(30, seed=3, nursing=0.5))
    docs, kinds = hipaa_corpus()
    predicted = model.predict([Document(d.id, d.text) for d in docs])
    return [(d.id, gold.start, kind) for d, spans in zip(docs, predicted)
            for gold, kind in kinds[d.id].items()
            if not any(s.start < gold.end and gold.start < s.end for s in spans)]


def test_the_recipe_finds_every_fixed_shape_identifier(missed):
    assert not [m for m in missed if m[2] not in LEARNED]


def test_the_recipe_finds_every_learned_identifier(missed):
    """The learned kinds too (names, towns, hospitals in running text). Until the generator drew
    towns under 15,000 people and names outside the feature lists (issue H), the recipe trained
    on these 30 records missed the town in running text; this was a strict xfail."""
    assert not [m for m in missed if m[2] in LEARNED]
