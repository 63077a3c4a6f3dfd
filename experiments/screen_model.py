"""Issue I: would a cheap screening model in front of member 0 pay? Measured before it is built.

    python experiments/screen_model.py --corpus ../shared/corpora/physionet-deid --train 400 \\
        --skip 400 --notes 400 [--rows member --rates 0.1 0.3] --out experiments/results/screen-model.md

The recipe's screen is member 0 itself: its 400 trees of depth 4 judge every token, over rows
that hold the learned columns (triggers, case counts, lexicon) as well as the note's own ones
(stage_times.py: about a third of a token's time is member 0's rows and trees). A *screening
model* would judge every token first with few trees over the note-only columns (those of
``itdeid.featurize.groups._STATIC_GROUPS``, computed once a note and needed by member 0 anyway), and member 0
would see only the tokens it passes, with their neighbours.

The recipe (:func:`itdeid.training.recipe.recipe_model`, seed 0, one thread) is trained on the first
``--train`` notes, and screening models of several sizes on the same notes' note-only rows (PHI
or not, one re-substituted copy as the members have). On notes ``--skip`` to ``--skip +
--notes`` the script reports, for each screening model, the lowest screen that still passes
every token member 0 rates at the recipe's screen or above (and all gold PHI tokens), the share
of tokens it passes with the screen's reach, and the seconds of its rows and trees against
member 0's. Nothing here changes a model; a screen in the library would then be judged in
levers.py's ten folds like any lever.
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from itdeid.estimators.ensemble import SCREEN_REACH
from itdeid.featurize import LEXICON_FOLDS, tokenize_document
from itdeid.estimators.folds import group_key
from itdeid.featurize.lexicon import fold_lexicons
from itdeid.formats import read_corpus
from itdeid.estimators.learners import Learner
from itdeid.training.recipe import RECIPE, recipe_model
from itdeid.evaluation.report import header, markdown_table
from itdeid.estimators.resubstitute import resubstituted
from itdeid.featurize.token_batch import TokenBatch

from common import publish, require_corpus, run_script, timed_notes

#: (trees, depth) of the screening models tried.
SIZES = ((25, 4), (50, 4), (100, 4), (50, 6))


def member_rows(extractor, docs) -> np.ndarray:
    """Training rows of ``docs`` with all of member 0's columns, as its own were built
    (:meth:`FeatureExtractor.fit_transform`: each note's lexicon columns from the other
    patients' notes) but with member 0's fitted extractor as it is, not refitted: a screen in
    front of it reads the rows member 0 reads."""
    if extractor.lexicon_ is None:
        return extractor.transform(docs)
    lexicons, fold = fold_lexicons(docs, LEXICON_FOLDS, extractor.lexicon_min_count)
    fold_of = {group_key(td.document): f for td, f in zip(docs, fold)}
    return extractor._matrix(docs, None, [lexicons[fold_of[group_key(td.document)]] for td in docs])


def note_only(extractor, docs) -> np.ndarray:
    """Member 0's feature rows of ``docs`` without the learned columns (nor their windows)."""
    batch = TokenBatch(docs)
    learned = set(extractor._learned_columns(TokenBatch(docs[:1]), None)) - {"initial_type"}
    keep = [j for j, name in enumerate(extractor.feature_names_) if name.split("@")[0] not in learned]
    return extractor.transform(docs, batch=batch)[:, keep], keep


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--train", type=int, default=400)
    ap.add_argument("--skip", type=int, default=400)
    ap.add_argument("--notes", type=int, default=400)
    ap.add_argument("--rows", choices=["note-only", "member"], default="note-only",
                    help="the screening models' columns: the note-only ones, or all of member 0's "
                         "(its learned columns too; issue I, session 43)")
    ap.add_argument("--rates", type=float, nargs="+", default=[0.1],
                    help="learning rates of the screening models (each size at each rate)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    require_corpus(args.corpus)
    documents = read_corpus(args.corpus)
    train = documents[:args.train]
    model = recipe_model(n_jobs=1, random_state=0).fit(train)
    member = model.members_[0]
    extractor = member.extractor_
    copies = [tokenize_document(d) for d in resubstituted(train, 1, seed=0)]
    rows = [tokenize_document(d) for d in train] + copies
    if args.rows == "member":
        X, keep = member_rows(extractor, rows), list(range(len(extractor.feature_names_)))
    else:
        X, keep = note_only(extractor, rows)
    y = (np.concatenate([td.labels for td in rows]) != 0).astype(np.int64)
    test = [tokenize_document(d) for d in timed_notes(documents, args.skip, args.notes)]
    gold = np.concatenate([td.labels for td in test]) != 0
    batch = TokenBatch(test)
    start = time.perf_counter()
    full = extractor.transform(test, batch=batch)
    member_rows_s = time.perf_counter() - start
    start = time.perf_counter()
    p0 = 1.0 - member.learner_.predict_proba(full)[:, 0]
    member_trees_s = time.perf_counter() - start
    screen = min(RECIPE["screen"], model.operating_threshold() / 10)
    needed = (p0 >= screen) | gold
    passed0 = batch.near(p0 >= screen, SCREEN_REACH)
    table = [{"screening model": "member 0 (the recipe's screen)", "columns": full.shape[1],
              "screen": f"{screen:.4g}", "tokens passed": f"{100 * passed0.mean():.1f} %",
              "screen for gold PHI only": f"{float(p0[gold].min()) if gold.any() else 1.0:.4g}",
              "tokens passed then": "", "screen for member 0's tokens only": "", "tokens passed so": "",
              "rows s": round(member_rows_s, 3), "trees s": round(member_trees_s, 3)}]
    for (trees, depth), rate in ((size, rate) for size in SIZES for rate in args.rates):
        learner = Learner(n_estimators=trees, max_depth=depth, learning_rate=rate, n_jobs=1,
                          random_state=0).fit(X, y)
        start = time.perf_counter()
        cheap = full[:, keep]          # the same rows, as a screen would build them (timed)
        rows_s = time.perf_counter() - start
        start = time.perf_counter()
        q = 1.0 - learner.predict_proba(cheap)[:, 0]
        trees_s = time.perf_counter() - start
        lowest = float(q[needed].min())
        passed = batch.near(q >= lowest, SCREEN_REACH)
        gold_only = float(q[gold].min()) if gold.any() else 1.0
        member_only = float(q[p0 >= screen].min()) if (p0 >= screen).any() else 1.0
        table.append({"screening model": f"{trees} trees of depth {depth} at {rate:g}", "columns": len(keep),
                      "screen": f"{lowest:.4g}", "tokens passed": f"{100 * passed.mean():.1f} %",
                      "screen for gold PHI only": f"{gold_only:.4g}",
                      "tokens passed then": f"{100 * batch.near(q >= gold_only, SCREEN_REACH).mean():.1f} %",
                      "screen for member 0's tokens only": f"{member_only:.4g}",
                      "tokens passed so": f"{100 * batch.near(q >= member_only, SCREEN_REACH).mean():.1f} %",
                      "rows s": round(rows_s, 3), "trees s": round(trees_s, 3)})
    n = len(batch)
    text = (header("A cheap screening model in front of member 0: what it would pass")
            + f"- the recipe trained here on notes 0-{args.train - 1}; screening models on the same notes' "
              + ("note-only rows" if args.rows == "note-only" else "rows with all of member 0's columns "
                 "(its fitted extractor; lexicon columns from the other patients' notes)")
            + " (and one re-substituted copy of each note with PHI)\n"
            + f"- notes {args.skip}-{args.skip + len(test) - 1}: {len(test)} ({n} tokens, {int(gold.sum())} gold "
              f"PHI); member 0 passes the tokens at P(PHI) >= {screen:.4g} and {SCREEN_REACH} each side\n"
            + "- a screening model's screen is the lowest that still passes every token member 0 passes "
              "at its screen and every gold PHI token (and, for comparison, every gold PHI token "
              "alone: a hindsight bound, not a rule; and every token member 0 passes alone, "
              "without the gold PHI it misses too); `rows s` for a screening model is only the "
              "column selection (its columns are computed for member 0 anyway); seconds "
              "on whatever else the machine ran\n\n"
            + markdown_table(pd.DataFrame(table).set_index("screening model")) + "\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "screen_model.py")
