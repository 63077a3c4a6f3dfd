"""The release report: one HTML page for a release committee, with no note text in it.

What ran (from the ``itdeid deid`` output folder's manifest: the model and whether its files
match their digests, the settings, the inputs done; from its run record, the last run's failed
inputs by reason and the inputs it left out, :mod:`itdeid.batch.run_record`), what was found
(PHI by class, per input), what review found (misses, false alarms and class changes by class in the reviewed sample), and
the PHI estimated to be left, two ways side by side with their assumptions
(:mod:`itdeid.review.estimate`). Plots are PNG made with matplotlib and put inside the page, so
it is one file that loads nothing from the network.
"""
from __future__ import annotations

import base64
import datetime
import html
import io
from collections import Counter
from pathlib import Path

from itdeid import __version__
from itdeid.document import PHI_CLASSES
from itdeid.errors import UserError
from itdeid.review import estimate as est

PAGE = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>itdeid release report</title>
<style>body{{font:15px/1.5 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#1c1c1c}}
table{{border-collapse:collapse;margin:.5em 0}}td,th{{border:1px solid #ccc;padding:3px 8px;text-align:right}}
th:first-child,td:first-child{{text-align:left}}img{{max-width:100%}}.note{{color:#555}}</style></head><body>
{body}</body></html>
"""


def _plots():
    try:
        import matplotlib
    except ImportError:
        raise UserError("itdeid report draws its plots with matplotlib: pip install 'itdeid[plots]' "
                        "(or pip install matplotlib)") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
    fig.clf()
    return f'<img alt="" src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}">'


def _table(header, rows) -> str:
    cells = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{cells}</tr>{body}</table>"


def _manifest(deid_out: Path) -> list[dict]:
    from itdeid.batch.manifest import MANIFEST_NAME, Manifest
    if not (deid_out / MANIFEST_NAME).is_file():
        raise UserError(f"{deid_out}: no {MANIFEST_NAME} here; give the --out folder of an 'itdeid deid' run")
    return [e for e in Manifest(deid_out).load().latest() if e is not None]


def _last_run(deid_out: Path) -> list[str]:
    """What the folder's last run left undone, from its run record
    (:mod:`itdeid.batch.run_record`): failed inputs counted by reason (their names stay in the
    record, as names can hold PHI), inputs a stop left out, and its model's digests check."""
    from itdeid.batch import run_record
    records = run_record.read(deid_out)
    if not records:
        return [f"<p><b>No run record</b> ({run_record.RECORD_NAME}) in this folder, as written by an "
                "itdeid deid that kept none: inputs that failed are not counted here. The run's own "
                "summary (stderr and exit status) named them.</p>"]
    last = records[-1]
    failed = last.get("failed") or []
    left_out = int(last.get("left_out") or 0)
    parts = [f"<p>The last run ({html.escape(str(last.get('finished')))}, itdeid "
             f"{html.escape(str(last.get('itdeid')))}; {len(records)} run{'s' if len(records) != 1 else ''} "
             f"recorded): {int(last.get('files') or 0):,} input files, {int(last.get('done') or 0):,} done, "
             f"{int(last.get('skipped') or 0):,} done before, {len(failed):,} failed, {left_out:,} not "
             f"reached. Its model's files: {html.escape(str(last.get('digests')))}; threshold "
             f"{html.escape(str(last.get('threshold')))}.</p>"]
    if failed or left_out or not last.get("ended", True):
        why = [] if last.get("ended", True) else ["the run was interrupted"]
        if last.get("stopped"):
            why.append("--strict stopped it at a failure")
        because = f" ({'; '.join(why)})" if why else ""
        parts.append(f"<p><b>This folder is not complete.</b> {len(failed):,} input "
                     f"file{'s' if len(failed) != 1 else ''} failed and {left_out:,} "
                     f"{'was' if left_out == 1 else 'were'} not reached{because}: the notes "
                     "in them are not de-identified here. Fix them and rerun itdeid deid into the same "
                     "folder (it redoes only those), then make this report again.</p>")
    if failed:
        reasons = Counter(str(reason) for _, reason in failed)
        shown = reasons.most_common(20)
        parts.append(_table(("why an input failed", "inputs"), shown))
        if len(reasons) > len(shown):
            parts.append(f"<p class=note>... and {len(reasons) - len(shown)} other reasons.</p>")
        parts.append(f"<p class=note>The failed inputs' names are in {run_record.RECORD_NAME} in the "
                     "output folder, not here: file names can hold PHI.</p>")
    return parts


def _fmt(x: float) -> str:
    return "n/a" if x != x else f"{x:,.1f}"


def release_report(deid_out, review=None) -> str:
    """The report's HTML for the ``itdeid deid`` output folder ``deid_out`` and, where given,
    the ``itdeid review`` folder ``review``."""
    from itdeid.model_folder import model_digests
    plt = _plots()
    deid_out = Path(deid_out)
    entries = _manifest(deid_out)
    parts = [f"<h1>itdeid release report</h1><p class=note>Made {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC "
             f"by itdeid {__version__}. It holds counts only: no note text and no file name.</p>"]

    # -- what ran --------------------------------------------------------------------------------
    models = Counter(e.get("model_dir") for e in entries)
    settings = Counter(tuple(sorted((k, str(v)) for k, v in (e.get("settings") or {}).items()
                                    if k not in ("key",))) for e in entries)
    rows = []
    for folder, n in models.items():
        check = model_digests.described(model_digests.check(folder)) if folder and Path(folder).is_dir() else \
            "the folder is not here to check"
        rows.append((folder, n, check))
    parts.append("<h2>What ran</h2>" + _table(("model folder", "inputs", "its files"), rows))
    for values, n in settings.items():
        parts.append(f"<p>Settings of {n} input{'s' if n != 1 else ''}: "
                     + ", ".join(f"{html.escape(k)} = {html.escape(v)}" for k, v in values) + "</p>")
    notes = sum(int(e.get("documents") or 0) for e in entries)
    tokens = sum(int(e.get("tokens") or 0) for e in entries)
    parts.append(f"<p>{len(entries):,} inputs done, holding {notes:,} notes and {tokens:,} tokens.</p>")
    parts += _last_run(deid_out)

    # -- what was found --------------------------------------------------------------------------
    by_class = Counter()
    per_input = []
    for e in entries:
        phi = e.get("phi") or {}
        by_class.update({k: int(v) for k, v in phi.items()})
        per_input.append(sum(int(v) for v in phi.values()))
    none = sum(1 for n in per_input if n == 0)
    parts.append("<h2>What was found</h2>" + _table(
        ("class", "PHI spans replaced"), [(c, f"{by_class.get(c, 0):,}") for c in PHI_CLASSES]
        + [("all", f"{sum(by_class.values()):,}")]))
    parts.append(f"<p>{none:,} of {len(entries):,} inputs had no PHI found.</p>")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.2))
    axes[0].bar(PHI_CLASSES, [by_class.get(c, 0) for c in PHI_CLASSES], color="#4a7bb7")
    axes[0].set_title("PHI spans by class")
    axes[0].tick_params(axis="x", rotation=45)
    axes[1].hist(per_input, bins=min(30, max(len(set(per_input)), 1)), color="#6a9a4a")
    axes[1].set_title("PHI spans per input")
    axes[1].set_xlabel("spans")
    axes[1].set_ylabel("inputs")
    parts.append(_png(fig))
    plt.close(fig)

    if review is not None:
        tagged_by = {(e.get("settings") or {}).get("model") for e in entries}
        parts += _review_sections(plt, Path(review), notes, tagged_by)
    return PAGE.format(body="\n".join(parts))


def _review_sections(plt, folder: Path, batch_notes: int, tagged_by: set) -> list[str]:
    from itdeid.review.store import ReviewStore
    store = ReviewStore.open(folder)
    design = store.state["design"]
    reviewed = [n for n in store.state["notes"] if n["reviewed"]]
    reviews = [est.review_note(n) for n in reviewed]
    population = int(design.get("population") or batch_notes)
    parts = ["<h2>What review found</h2>",
             f"<p>{len(reviewed)} of the {len(store.state['notes'])} sampled notes are reviewed. The sample "
             f"was drawn from {population:,} notes: {design.get('risk_notes')} by risk and "
             f"{design.get('random_notes')} at random, seed {design.get('seed')}; model threshold "
             f"{design.get('threshold')}.</p>"]
    if design.get("model_sha256") and tagged_by != {design["model_sha256"]}:
        parts.append("<p><b>The review judged another model's tags</b> than the model whose files tagged "
                     "this batch (an adapted model, say): what review found, and both estimates, are of the "
                     "reviewed model's misses. To measure the new model, review a fresh sample of its tags "
                     "(itdeid review --model).</p>")
    if population != batch_notes:
        parts.append(f"<p class=note>The review was drawn from {population:,} notes; the output folder "
                     f"holds {batch_notes:,}. The estimates below are of the notes the review was drawn from.</p>")
    misses, alarms = Counter(), Counter()
    for r in reviews:
        misses.update(r.misses_by_class)
        alarms.update(r.false_alarms_by_class)
    parts.append(_table(("class", "missed (added in review)", "false alarms (removed)"),
                        [(c, misses.get(c, 0), alarms.get(c, 0)) for c in PHI_CLASSES]
                        + [("all", sum(misses.values()), sum(alarms.values()))]))
    parts.append(f"<p>{sum(r.retyped for r in reviews)} PHI found under another class only; "
                 f"{sum(r.gold_instances for r in reviews)} PHI instances in the reviewed notes in all.</p>")
    if not reviews:
        parts.append("<p>No note is reviewed yet: nothing can be estimated.</p>")
        return parts

    strata = {"risk": int(design.get("risk_notes") or 0),
              "random": population - int(design.get("risk_notes") or 0)}
    design_based = est.design_estimate(reviews, strata, population)
    model_based = est.model_estimate(reviewed, design.get("untagged") or {"counts": [], "sums": []},
                                     reviews, population)
    rows = [("from the reviewed sample, weighted by its design", *map(_fmt, design_based.per_1000),
             _fmt(design_based.total))]
    if model_based is not None:
        rows.append(("from the model's calibrated probabilities", *map(_fmt, model_based.per_1000),
                     _fmt(model_based.total)))
    parts.append("<h2>PHI estimated to be left</h2>" + _table(
        ("estimate", "missed instances per 1,000 notes", "95 % low", "95 % high", "in the batch"), rows))
    parts.append("<p class=note><b>From the reviewed sample.</b> " + html.escape(est.DESIGN_ASSUMPTIONS) + "</p>")
    parts.append("<p class=note><b>From the model's probabilities.</b> " + html.escape(est.MODEL_ASSUMPTIONS) + "</p>")
    if design_based.total != design_based.total:
        parts.append("<p>The design-based estimate needs at least one reviewed note of each stratum.</p>")

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    labels, values = [], []
    for name, e in (("design", design_based), ("model", model_based)):
        if e is not None and e.total == e.total:
            labels.append(name)
            values.append(e.per_1000)
    for i, (mid, low, high) in enumerate(values):
        axes[0].errorbar([i], [mid], yerr=[[mid - low], [high - mid]], fmt="o", capsize=6)
    axes[0].set_xticks(range(len(labels)), labels)
    axes[0].set_xlim(-0.5, max(len(labels), 1) - 0.5)
    axes[0].set_ylabel("missed PHI per 1,000 notes")
    axes[0].set_title("PHI left, 95 % intervals")
    curve = est.calibration_curve(reviewed)
    if curve is not None:
        import numpy as np
        p, fitted, y = curve
        edges = np.unique(np.r_[0, np.geomspace(1e-4, max(p.max(), 1e-3), 12)])
        where = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, len(edges) - 2)
        keep = [k for k in range(len(edges) - 1) if (where == k).any()]
        axes[1].plot([fitted[where == k].mean() for k in keep], [y[where == k].mean() for k in keep], "o-",
                     label="out-of-fold curve vs observed")
        axes[1].plot([p[where == k].mean() for k in keep], [y[where == k].mean() for k in keep], "s--",
                     alpha=.6, label="raw P(PHI) vs observed")
        top = max(1e-3, float(max(y.mean(), fitted.max(), p.max())))
        axes[1].plot([0, top], [0, top], ":", color="grey")
        axes[1].legend(fontsize=8)
    axes[1].set_xlabel("predicted share of PHI (untagged tokens)")
    axes[1].set_ylabel("observed share of PHI")
    axes[1].set_title("Calibration, cross-validated over reviewed notes")
    parts.append(_png(fig))
    plt.close(fig)
    return parts
