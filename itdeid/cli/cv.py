"""``itdeid cv CORPUS --folds 10``: cross-validate baselines and boosted models on the same folds."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from itdeid.training.crossval import LEVER_ROWS, PEER_ROWS, STANDARD_ROWS, crossval, results_table, row_model
from itdeid.document import Document
from itdeid.errors import UserError
from itdeid.featurize import tokenize_document
from itdeid.formats import read_annotated_corpus, write_jsonl_spans
from itdeid.estimators.learners import LEARNERS
from itdeid.estimators.model import PREVIOUS
from itdeid.evaluation.report import header, markdown_table
from itdeid.featurize.triggers import VARIANTS


#: The rows ``cv`` runs unless told otherwise (the paper's).
DEFAULT_ROWS = ",".join(STANDARD_ROWS)


def add_parser(subparsers):
    p = subparsers.add_parser(
        "cv", help="k-fold cross-validation (folds grouped by patient)",
        description="Cross-validate on document boundaries, grouping a patient's notes in one fold. "
                    "By default runs the rows " + ", ".join(STANDARD_ROWS) + "; --learner/--trigger "
                    "run one row instead. Writes results.md, results.csv and out-of-fold predictions.")
    p.add_argument("corpus", help="annotated corpus (any format)")
    p.add_argument("--format", default="auto", help="corpus format (default: detect)")
    p.add_argument("--folds", type=int, default=10, help="number of folds (default: 10)")
    p.add_argument("--seed", type=int, default=0, help="seed of the learners, and of the fold assignment among patients of the same "
                        "size only (folds are dealt largest patient first, so other seeds rarely "
                        "change them)")
    p.add_argument("--rows", default=DEFAULT_ROWS,
                   help="comma-separated rows among " + ", ".join([*STANDARD_ROWS, *LEVER_ROWS, *PEER_ROWS]) +
                        " (default: the first five)")
    p.add_argument("--learner", choices=LEARNERS, help="run a single row with this learner")
    p.add_argument("--trigger", choices=VARIANTS, help="trigger variant of the single row")
    p.add_argument("--previous", choices=PREVIOUS, default="gold",
                   help="previous-class feature source at training time (default: gold, 3x "
                        "cheaper than the models' own default oof; the paper's rows use it)")
    p.add_argument("--n-jobs", type=int, default=None, help="xgboost threads (default: all cores)")
    p.add_argument("--negative-rate", type=float, default=1.0,
                   help="fraction of the non-PHI tokens far from any PHI the boosted trees train on, reweighted (default: 1, all; 0.1-0.2 trains several times faster)")
    p.add_argument("--out", default="cv-results", help="folder for results; a rerun replaces the "
                   "results.*, predictions-*.jsonl and scores-*.json an earlier run wrote there "
                   "(default: cv-results)")
    p.add_argument("--title", default=None, help="title of results.md")
    p.set_defaults(run=run)


def run(args):
    if (args.learner or args.trigger) and args.rows != DEFAULT_ROWS:
        raise UserError("give either --rows or --learner/--trigger (one row of their own), not both: "
                        "--rows would be ignored")
    documents = read_annotated_corpus(args.corpus, args.format)
    if args.learner or args.trigger:
        learner, trigger = args.learner or "xgboost", args.trigger or "token"
        rows = {f"{learner}-{trigger}": dict(learner=learner, trigger=trigger)}
    else:
        names = list(dict.fromkeys(r.strip() for r in args.rows.split(",") if r.strip()))   # each row once
        if not names:
            raise UserError(f"--rows names no row; choose from {', '.join(STANDARD_ROWS)}, ...")
        known = {**STANDARD_ROWS, **LEVER_ROWS, **{r: {} for r in PEER_ROWS}}
        unknown = [r for r in names if r not in known]
        if unknown:
            raise UserError(f"unknown rows {', '.join(unknown)}; choose from {', '.join(known)}")
        rows = {r: known[r] for r in names}
    tokenized = [tokenize_document(d) for d in tqdm(documents, desc="tokenize", file=sys.stderr, leave=False)]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    earlier = _earlier_results(out)
    for path in earlier:
        path.unlink()
    if earlier:
        print(f"removed the {len(earlier)} result files of an earlier run from {out}", file=sys.stderr)
    results = []
    with tqdm(total=len(rows) * args.folds, desc="cv", unit="fold", file=sys.stderr) as bar:
        for name, params in rows.items():
            shared = {"previous": args.previous, "random_state": args.seed, "n_jobs": args.n_jobs,
                      "negative_rate": args.negative_rate}
            bar.set_postfix_str(name)
            result = crossval(documents, lambda: row_model(name, params, shared), args.folds, args.seed,
                              name, tokenized=tokenized, progress=bar)
            results.append(result)
            write_jsonl_spans([Document(d.id, d.text, result.predictions.get(d.id, []))
                               for d in documents], out / f"predictions-{name}.jsonl")
            # written after every row, so a long run that is stopped keeps the rows it finished
            _write_results(out, args, documents, results, len(rows))
    print(markdown_table(results_table(results)))
    print(f"results written to {out}/results.md, results.csv and predictions-*.jsonl")


def _earlier_results(out: Path) -> list[Path]:
    """The files an earlier ``cv`` wrote into ``out``: a rerun left another corpus's or seed's
    predictions and scores beside its own results, where they passed for current ones."""
    return sorted(path for pattern in ("results.md", "results.csv", "predictions-*.jsonl", "scores-*.json")
                  for path in out.glob(pattern) if path.is_file())


def _write_results(out: Path, args, documents, results, n_rows: int) -> None:
    table = results_table(results)
    table.to_csv(out / "results.csv")
    text = header(args.title or f"Cross-validation ({args.folds} folds) of {Path(args.corpus).name}")
    text += f"- corpus: {len(documents)} documents, {len({d.patient or d.id for d in documents})} patients\n"
    if len(results) < n_rows:
        text += f"- partial: {len(results)} of {n_rows} rows finished so far\n"
    text += ("\nToken-level scores in percent, pooled over out-of-fold predictions; `8way_F_fold_sd` is "
             "the spread over folds; `seconds` is wall time of the row.\n\n")
    text += markdown_table(table)
    for r in results:
        text += f"\n## {r.name}\n\nPer fold (percent):\n\n"
        text += markdown_table(pd.DataFrame(r.per_fold).set_index("row").mul(100))
        text += f"\nPooled scores (all measures, percent):\n\n```\n{r.scores.format()}\n```\n"
        text += "\nConfusion matrix (token counts; rows gold, columns predicted, as the paper's Table 2):\n\n"
        text += markdown_table(r.scores.confusion)
        r.scores.write_json(out / f"scores-{r.name}.json")
    (out / "results.md").write_text(text, encoding="utf-8")
