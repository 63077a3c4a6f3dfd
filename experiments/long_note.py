"""Benchmark one very long note: seconds and peak memory as the note grows (issue I, item 4).

    python experiments/long_note.py --model DIR [--sizes-mb 1 2 4] [--whole-up-to-mb 2]
                                    [--one-line-mb 1] [--out experiments/results/long-note.md]

A note of N million characters is built from synthetic discharge summaries
(:func:`itdeid.synth.generate`, seed 0) joined by line ends, written to a file, then read and
tagged by a separate process (this script with ``--one``), as :func:`itdeid.text.pieces.tag_documents`
tags it for ``itdeid deid`` and ``itdeid tag``: in pieces of :data:`itdeid.text.pieces.PIECE_CHARS`
characters. The parent times the process; the process reports its own peak resident memory,
the kernel's high-water mark of its address space (``VmHWM`` of ``/proc/self/status``), so each
size is measured on its own. (The rusage figure ``os.wait4`` gives is not used where /proc is
there: Linux carries the parent's peak into a child started by vfork and exec, so after the
parent had built a 20-million-character note, the next child's figure was the parent's.) Flat memory means the peak stays about the same as N grows.

For contrast, notes up to ``--whole-up-to-mb`` are also tagged whole (one piece the size of the
note, as before pieces existed), where memory grows with the note; the ``same spans`` column
says how many of the whole note's spans the pieces reproduce exactly (the rest differ near
cuts through note-wide features, see :mod:`itdeid.text.pieces`). ``--one-line-mb`` adds a note of
that size written as one single line (cut at spaces).

Run it on a quiet machine: other work on the cores shows up in every number.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="model folder written by 'itdeid train'")
    p.add_argument("--sizes-mb", type=float, nargs="+", default=[1, 2, 4],
                   help="note sizes in millions of characters (default: 1 2 4)")
    p.add_argument("--whole-up-to-mb", type=float, default=2,
                   help="also tag notes up to this size whole, for contrast (0: none)")
    p.add_argument("--one-line-mb", type=float, nargs="*", default=[1],
                   help="sizes of single-line notes to add (default: 1)")
    p.add_argument("--cli-mb", type=float, default=None,
                   help="also run `itdeid deid` (one worker) on a note of this size, stderr not a "
                        "terminal, and report the progress lines it writes")
    p.add_argument("--model-name", default=None, help="how the results name the model")
    p.add_argument("--out", default="experiments/results/long-note.md")
    p.add_argument("--one", nargs=3, metavar=("NOTE", "PIECE_CHARS", "SPANS"),
                   help=argparse.SUPPRESS)      # the child: tag one note file
    return p.parse_args(argv)


def long_note(chars: int, one_line: bool = False):
    """``chars`` characters of synthetic notes joined by line ends (or spaces: one line), and
    the generator's gold spans that lie wholly inside them (None for one line, whose offsets
    moved)."""
    from itdeid.document import Span
    from itdeid.synth import generate
    records, parts, spans, size = 50, [], [], 0
    seed = 0
    while size < chars:
        for doc in generate(records, seed=seed):
            spans += [Span(s.start + size, s.end + size, s.type) for s in doc.spans]
            parts.append(doc.text)
            size += len(doc.text) + 1
            if size >= chars:
                break
        seed += 1
    text = "\n".join(parts)[:chars]
    if one_line:
        return " ".join(text.split()), None
    return text, [s for s in spans if s.end <= chars]


def tag_one(model_dir: str, note: str, piece_chars: int, spans_file: str) -> None:
    """The child: load the model, read and tag the note, write its spans and counts."""
    from itdeid.text import pieces
    from itdeid import load_model
    from itdeid.document import Document
    from itdeid.text.tokens import count_tokens
    trees = tree_clock()
    started = time.perf_counter()
    model = load_model(model_dir)
    loaded = time.perf_counter()
    text = Path(note).read_text(encoding="utf-8")
    found = pieces.tag_documents(model, [Document("long", text)], limit=piece_chars)[0]
    tagged = time.perf_counter()
    Path(spans_file).write_text(json.dumps({
        "spans": [[s.start, s.end, s.type] for s in found], "tokens": count_tokens(text),
        "pieces": len(pieces.cut(text, piece_chars)), "load_seconds": loaded - started,
        "tag_seconds": tagged - loaded, "tree_seconds": trees[0], "peak_kib": own_peak_kib()}),
        encoding="utf-8")


def tree_clock() -> list[float]:
    """A one-item list that sums the seconds this process spends in xgboost's predictor
    (``Booster.inplace_predict``, which every tree model of the tagging goes through): what of
    the tagging time the trees take, against the features and rules around them."""
    import xgboost
    spent = [0.0]
    predict = xgboost.Booster.inplace_predict

    def timed(self, *args, **kwargs):
        started = time.perf_counter()
        try:
            return predict(self, *args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - started
    xgboost.Booster.inplace_predict = timed
    return spent


def own_peak_kib() -> int | None:
    """This process's peak resident memory since it started its program (``VmHWM``), in KiB;
    None without /proc."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def score_against(text: str, gold, spans) -> dict:
    """Binary token recall and PHI instances found against ``gold`` (empty when None)."""
    if gold is None:
        return {"gold R": "", "gold instances": ""}
    from itdeid.document import Document, Span
    from itdeid.evaluation.evaluate import evaluate
    found = [Span(a, b, t) for a, b, t in spans]
    summary = evaluate([Document("long", text, gold)], {"long": found}).to_dict()["summary"]
    return {"gold R": round(100 * summary["binary_token"]["r"], 2),
            "gold instances": round(100 * summary["phi_instances"]["r"], 2)}


def measure(note: Path, model: str, piece_chars: int, work: Path) -> dict:
    """Run the child on ``note``; its wall seconds, peak RSS (MiB) and what it wrote."""
    spans_file = work / f"spans-{note.stem}-{piece_chars}.json"
    env = dict(os.environ, OMP_NUM_THREADS="1")         # one core, as one worker of itdeid deid
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, __file__, "--model", model, "--one", str(note),
                                str(piece_chars), str(spans_file)], env=env)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"the tagging process failed (status {status}) on {note.name}")
    result = json.loads(spans_file.read_text(encoding="utf-8"))
    own = result.pop("peak_kib", None)
    result.update(seconds=seconds, rss_mib=(own if own is not None else usage.ru_maxrss) / 1024)  # KiB
    return result


def run_cli(note: Path, model: str, work: Path) -> tuple[float, list[str]]:
    """``itdeid deid`` on the folder holding only ``note`` (one worker, JSON Lines), stderr a
    pipe as in a batch scheduler's log: its wall seconds and the progress lines it wrote
    (amounts only; itdeid never writes note text or file names there)."""
    folder = work / "cli-in"
    folder.mkdir()
    note.replace(folder / note.name)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "itdeid.cli", "deid", str(folder), "--out", str(work / "cli-out"),
                           "--model", model, "--workers", "1", "--format", "jsonl"],
                          env=env, cwd=work, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"itdeid deid failed (status {done.returncode}) on the {note.name} note")
    return seconds, [line for line in done.stderr.splitlines() if line.startswith("itdeid deid: ")]


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.one:
        tag_one(args.model, args.one[0], int(args.one[1]), args.one[2])
        return 0
    import pandas as pd
    from itdeid.text.pieces import CONTEXT_CHARS, PIECE_CHARS
    from itdeid.batch.progress import LOG_EVERY_SECONDS
    from itdeid.evaluation.report import header, markdown_table

    from common import publish
    rows = []
    cases = [(mb, False) for mb in args.sizes_mb] + [(mb, True) for mb in args.one_line_mb]
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        for mb, one_line in cases:
            chars = int(mb * 1_000_000)
            note = work / f"note-{mb:g}mb{'-one-line' if one_line else ''}.txt"
            text, gold = long_note(chars, one_line)
            note.write_text(text, encoding="utf-8")
            modes = [("pieces", PIECE_CHARS)]
            if not one_line and mb <= args.whole_up_to_mb:
                modes.append(("whole", chars + 1))
            measured = {}
            for mode, piece_chars in modes:
                measured[mode] = result = measure(note, args.model, piece_chars, work)
                print(f"{note.name} {mode}: {result['seconds']:.1f} s, "
                      f"{result['rss_mib']:.0f} MiB peak", file=sys.stderr, flush=True)
            whole = {tuple(s) for s in measured["whole"]["spans"]} if "whole" in measured else None
            for mode, result in measured.items():
                same = ""
                if whole is not None:
                    kept = len(whole & {tuple(s) for s in result["spans"]})
                    same = f"{kept} of {len(whole)}"
                found = score_against(text, gold, result["spans"])
                rows.append({"note": f"{mb:g} M chars" + (", one line" if one_line else ""),
                             "tokens": result["tokens"], "tagged": mode,
                             "pieces": result["pieces"], "spans": len(result["spans"]),
                             "same spans as whole": same, **found,
                             "tagging s": round(result["tag_seconds"], 1),
                             "trees s": round(result["tree_seconds"], 1),
                             "process s": round(result["seconds"], 1),
                             "peak RSS MiB": round(result["rss_mib"]),
                             "chars/s": round(chars / result["tag_seconds"])})
        cli = None
        if args.cli_mb:
            note = work / f"note-{args.cli_mb:g}mb-cli.txt"
            note.write_text(long_note(int(args.cli_mb * 1_000_000), False)[0], encoding="utf-8")
            cli = (args.cli_mb, *run_cli(note, str(Path(args.model).resolve()), work))
    text = header("Long notes: one note of growing size tagged in pieces")
    text += (f"- model: {args.model_name or args.model}\n- pieces: "
             f"{PIECE_CHARS:,} characters, {CONTEXT_CHARS:,} characters of context each side "
             "(itdeid.text.pieces)\n\n")
    text += markdown_table(pd.DataFrame(rows))
    text += ("\n`tagging s`: reading and tagging the note in the child process, after loading "
             "the model; `trees s`: of that, the seconds spent in xgboost's predictor (every tree "
             "model of the tagging); `process s`: the whole child process (start-up, model, tagging); "
             "`peak RSS MiB`: the child's own peak resident memory (VmHWM). `whole`: the "
             "note as one piece, as before pieces existed. `gold R` and `gold instances`: binary "
             "token recall and PHI instances found against the generator's own spans (percent; "
             "none for one line, whose offsets moved): a span that pieces and whole tag "
             "differently may be PHI or not, and these say which side finds more of it.\n")
    if cli is not None:
        mb, seconds, lines = cli
        text += (f"\n## `itdeid deid` on a {mb:g}-million-character note, stderr to a log\n\n"
                 f"One worker, JSON Lines out: {seconds:.1f} s from start to exit. The progress lines "
                 f"it wrote (every {LOG_EVERY_SECONDS:g} s while running, then the last):\n\n```\n"
                 + "\n".join(lines) + "\n```\n")
    publish(text, args.out)
    return 0


if __name__ == "__main__":
    from common import run_script      # itdeid is imported where needed (memory
    run_script(main, "long_note.py")
