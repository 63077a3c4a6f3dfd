"""What each pass adds and costs, on the corpus it was written from and on others (issue M, item 2)

    python experiments/pass_table.py [--physionet DIR] [--folds 5] [--n-jobs 2]
        [--synthetic 200] [--seed 60606] [--cache experiments/results/pass-table/cache]
        [--out experiments/results/pass-table.md]

Each pass of :data:`itdeid.pipeline.PASSES` is switched off alone, and the tagging scored against
gold with and without it: what it adds to recall and to precision (all passes on, less that pass
off), in points. Where a pass was written from one corpus's errors it should help there; one that
helps nowhere else is that corpus's habits, which belong in a site's adaptation, not in the
shipped model.

Corpora and models:

- **PhysioNet, open patients, grouped CV**: the dev split less the lockbox patients
  (``experiments/lockbox.json``, never read), in ``--folds`` folds by patient
  (:func:`itdeid.estimators.folds.group_folds`); each fold's model is the shipped recipe
  (:func:`itdeid.training.recipe.recipe_model`, with the preset's synthetic supplement, its
  threshold chosen on the real notes) trained on the other folds. The passes were written from
  the errors of these notes, so this column is where they look best.
- **synthetic summaries** and **synthetic nursing notes**: ``--synthetic`` records each of
  :func:`itdeid.synth.generate` from ``--seed`` (and ``--seed`` + 1 for nursing notes,
  ``nursing=1``), seeds the recipe never trained on, tagged by the shipped model;
- **hand-written letters**: ``experiments/heldout/handwritten-discharge.xml``, by the shipped model.

Every model's probabilities are computed once a corpus; each configuration then runs the passes
(:func:`itdeid.pipeline.run_passes` with ``skip``) on the same labels at the model's threshold, so
the differences are the passes' alone. Scores: binary token precision and recall (PHI or not),
PHI instances found and typed 8-way token F, from :func:`itdeid.evaluation.evaluate.evaluate`. A
pass the model does not run (:func:`itdeid.pipeline.switches`) shows as off.

Resumable: each fold's model folder is kept under ``--cache`` (git-ignored; models only, no text).
Skips the PhysioNet column, saying so, where the split is absent.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path


from common import ROOT, publish, run_script

LETTERS = ROOT / "experiments" / "heldout" / "handwritten-discharge.xml"


def fold_model(train, extra, cache: Path, f: int, n_jobs: int):
    """The shipped preset's model trained on ``train`` (PhysioNet notes) and the preset's
    synthetic supplement ``extra``, its threshold chosen on the real notes, saved to and read
    back from ``cache/fold-F`` (with the preset's passes off, which are switched at run time)."""
    from itdeid import load_model
    from itdeid.training.presets import PRESETS, preset_model
    folder = cache / f"fold-{f}"
    if (folder / "ensemble.json").is_file():
        model = load_model(str(folder))
        model.skip_passes = tuple(PRESETS["default"].get("skip_passes", ()))   # a runtime switch
        return model
    model = preset_model("default", n_jobs=n_jobs)
    started = time.perf_counter()
    model.fit(list(train) + list(extra), calibrate_on=[True] * len(train) + [False] * len(extra))
    partial = cache / f"fold-{f}.partial"
    model.save(partial)
    partial.rename(folder)
    print(f"fold {f}: trained in {time.perf_counter() - started:.0f} s", flush=True)
    return model


def scores(documents, tokenized, codes) -> dict:
    from itdeid.evaluation.evaluate import evaluate
    from itdeid.featurize.tokenized import note_spans
    predicted = {d.id: note_spans(td, c) for d, td, c in zip(documents, tokenized, codes)}
    s = evaluate(documents, predicted).summary()
    return {"P": s["binary_token"]["p"], "R": s["binary_token"]["r"], "found": s["phi_instances"]["r"],
            "F": s["token_8way"]["f"]}


def configurations() -> list[tuple[str, frozenset]]:
    from itdeid.pipeline import pass_names
    names = pass_names()
    return ([("all passes", frozenset())] + [(name, frozenset({name})) for name in names]
            + [("no pass", frozenset(names))])


def prepare(parts) -> list[tuple]:
    """Per (model, documents) pair of ``parts``: the model, the documents, their tokenized
    notes, the labels at the model's threshold before any pass, and the passes the model runs."""
    from itdeid.estimators.operating_point import decide
    from itdeid.featurize import tokenize_documents
    from itdeid.pipeline import switches
    prepared = []
    for model, documents in parts:
        tokenized = tokenize_documents(documents, gold=False)
        threshold = model.operating_threshold()
        labels = [decide(p, threshold) for p in model.predict_proba_tokenized(tokenized)]
        prepared.append((model, documents, tokenized, labels,
                         {one.name for _, one, on in switches(model) if on}))
    return prepared


def pooled_scores(prepared, skip=frozenset()) -> dict:
    """Scores of the passes (less ``skip``) run over every part of ``prepared``
    (:func:`prepare`'s), the parts' predictions pooled."""
    from itdeid.pipeline import run_passes
    documents, tokenized, codes = [], [], []
    for model, docs, tok, labels, _ in prepared:
        documents += docs
        tokenized += tok
        codes += run_passes(model, tok, labels, skip=skip)
    return scores(documents, tokenized, codes)


def corpus_rows(parts) -> dict[str, dict]:
    """Scores of each configuration over ``parts``: (model, documents) pairs whose predictions
    are pooled (one per fold, or one for a whole corpus)."""
    prepared = prepare(parts)
    rows = {}
    for name, skip in configurations():
        rows[name] = pooled_scores(prepared, skip)
        rows[name]["on"] = all(name in on for *_, on in prepared) if skip and len(skip) == 1 else None
    return rows


def table(columns: dict[str, dict[str, dict]]) -> str:
    """Per pass and corpus: recall and precision it adds (all passes less the pass off), points."""
    names = [name for name, _ in configurations()]
    head = "| pass | " + " | ".join(f"{c}: +R | {c}: +P" for c in columns) + " |\n"
    head += "|---|" + "---|---|" * len(columns) + "\n"
    lines = []
    for name in names:
        cells = []
        for rows in columns.values():
            full, row = rows["all passes"], rows[name]
            if name == "all passes":
                cells += [f"R {100 * row['R']:.2f}", f"P {100 * row['P']:.2f}"]
            elif row.get("on") is False:
                cells += ["off", "off"]
            else:
                cells += [f"{100 * (full['R'] - row['R']):+.2f}", f"{100 * (full['P'] - row['P']):+.2f}"]
        lines.append(f"| {name} | " + " | ".join(cells) + " |\n")
    return head + "".join(lines)


def full_table(columns: dict[str, dict[str, dict]]) -> str:
    head = "| corpus | configuration | binary P | binary R | found | typed F |\n|---|---|---|---|---|---|\n"
    return head + "".join(
        f"| {corpus} | {name} | {100 * r['P']:.2f} | {100 * r['R']:.2f} | {100 * r['found']:.2f} | {100 * r['F']:.2f} |\n"
        for corpus, rows in columns.items() for name, r in rows.items())


def corpora(args) -> tuple[dict[str, list], list[str]]:
    """Each corpus's (model, documents) parts, by column name, and a line describing each: the
    PhysioNet open patients' folds (where the split is here) and the three other corpora."""
    from itdeid import load_model
    from itdeid.estimators.folds import group_folds
    from itdeid.formats import read_i2b2_2006
    from itdeid.synth import generate
    from itdeid.training.presets import default_physionet, preset_corpus
    from lockbox import open_documents

    shipped = load_model()
    columns: dict[str, list] = {}
    notes = []
    physionet = Path(args.physionet) if args.physionet else default_physionet()
    if (physionet / "id.text").is_file():
        every, real, _ = preset_corpus("default", physionet)       # the preset's notes and supplement
        documents = open_documents([d for d, r in zip(every, real) if r])
        extra = [d for d, r in zip(every, real) if not r]
        fold = group_folds(documents, args.folds)
        cache = Path(args.cache)
        cache.mkdir(parents=True, exist_ok=True)
        parts = []
        for f in range(args.folds):
            train = [d for d, k in zip(documents, fold) if k != f]
            test = [d for d, k in zip(documents, fold) if k == f]
            parts.append((fold_model(train, extra, cache, f, args.n_jobs), test))
        columns["PhysioNet open CV"] = parts
        notes.append(f"PhysioNet open CV: {len(documents)} notes of {len({d.patient for d in documents})} "
                     f"patients (the lockbox's left out), {args.folds} folds by patient")
    else:
        notes.append(f"PhysioNet: not here ({physionet}), its column skipped")
    summaries = generate(args.synthetic, seed=args.seed)
    nursing = generate(args.synthetic, seed=args.seed + 1, nursing=1.0)
    letters = read_i2b2_2006(LETTERS)
    columns["synthetic summaries"] = [(shipped, summaries)]
    columns["synthetic nursing"] = [(shipped, nursing)]
    columns["letters"] = [(shipped, letters)]
    notes += [f"synthetic summaries: `generate({args.synthetic}, seed={args.seed})`, shipped model",
              f"synthetic nursing notes: `generate({args.synthetic}, seed={args.seed + 1}, nursing=1.0)`, shipped model",
              f"hand-written letters: {len(letters)} notes, shipped model"]
    return columns, notes


def add_corpus_options(p: argparse.ArgumentParser, synthetic: int | None = 200) -> None:
    """The options :func:`corpora` reads: the PhysioNet split, its folds and their model cache,
    and the synthetic corpora's size and seed (hidden, and 0 records, where ``synthetic`` is None:
    a script that scores PhysioNet alone)."""
    p.add_argument("--physionet", default=None)
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--n-jobs", type=int, default=2)
    hidden = {"help": argparse.SUPPRESS} if synthetic is None else {}
    p.add_argument("--synthetic", type=int, default=synthetic or 0, **hidden)
    p.add_argument("--seed", type=int, default=60606, **hidden)
    p.add_argument("--cache", default="experiments/results/pass-table/cache")


def main(argv=None) -> int:
    from itdeid.evaluation.report import header

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus_options(p)
    p.add_argument("--out", default="experiments/results/pass-table.md")
    args = p.parse_args(argv)
    started = time.perf_counter()
    parts, notes = corpora(args)
    columns = {name: corpus_rows(each) for name, each in parts.items()}
    text = header("What each pass adds and costs, corpus by corpus")
    text += "".join(f"- {n}\n" for n in notes)
    text += (f"- time: {(time.perf_counter() - started) / 60:.1f} min (fold models cached by an earlier run "
             "are read back)\n\n"
             "+R, +P: what the pass adds to binary token recall and precision, in points (all passes on, "
             "less that pass alone off); off: the model does not run it. The first row gives the scores with "
             "every pass on, the last what all the passes together add.\n\n" + table(columns)
             + "\n## Every configuration\n\n" + full_table(columns))
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    run_script(main, "pass_table.py")
