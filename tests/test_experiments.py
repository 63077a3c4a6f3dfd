"""The experiment scripts run end to end on a tiny corpus (so they do not rot between runs)."""
import re
import shutil
import sys
from pathlib import Path

import pytest

from itdeid.formats import write_i2b2_2006

from helpers import EXPERIMENTS, script_functions, tiny_corpus


def tiny_table1(tmp_path, *extra) -> tuple[list[str], Path]:
    """argv of a 2-fold, 1-iteration Table 1 on a tiny corpus, and its results folder."""
    write_i2b2_2006(tiny_corpus(12, seed=6), tmp_path / "tiny.xml")
    out = tmp_path / "t1"
    return (["table1.py", "--corpus", str(tmp_path / "tiny.xml"), "--folds", "2", "--iterations", "1",
             "--n-estimators", "3", "--n-jobs", "1", *extra, "--out", str(out)], out)


def run_script(name: str) -> None:
    """Run an experiment script as ``python experiments/NAME`` would (:func:`script_functions`)."""
    script_functions(name, run_name="__main__")


def test_table1_script(tmp_path, monkeypatch):
    argv, out = tiny_table1(tmp_path)
    monkeypatch.setattr(sys, "argv", argv)
    run_script("table1.py")
    table = (out / "table1.md").read_text()
    for row in ("BASELINE", "C4.5", "ITR0_BEST", "ITR1_VOTE", "ITR1_VOTE_STD", "ITR1_RECALL_STD", "ITR1_VOTE_STD_PATIENT"):
        assert f"| {row} |" in table
    assert "- machine:" in table and "- command:" in table
    assert "rows gold" in (out / "table2.md").read_text()
    assert sorted(p.name for p in (out / "folds").glob("fold-*.npz")) == ["fold-0.npz", "fold-1.npz"]


def test_table1_trained_on_one_corpus_tested_on_another(tmp_path, monkeypatch):
    """--test: no folds, every stage scored on the other corpus (which the models never saw)."""
    write_i2b2_2006(tiny_corpus(12, seed=6), tmp_path / "train.xml")
    write_i2b2_2006(tiny_corpus(4, seed=9), tmp_path / "test.xml")
    out = tmp_path / "t1"
    monkeypatch.setattr(sys, "argv", ["table1.py", "--corpus", str(tmp_path / "train.xml"), "--test",
                                      str(tmp_path / "test.xml"), "--iterations", "1", "--n-estimators",
                                      "3", "--n-jobs", "1", "--peers", "RULES", "--out", str(out)])
    run_script("table1.py")
    table = (out / "table1.md").read_text()
    assert "tested on 4 documents" in table and "trained on train, tested on test" in table
    assert "| ITR1_VOTE_STD |" in table and "| RULES | peer |" in table and "; RULES " in table
    assert not (out / "folds").exists()
    import json
    scores = json.loads((out / "scores.json").read_text())
    # scored on the 4 test documents only: the gold PHI tokens counted are the test corpus's
    from itdeid.evaluation.evaluate import evaluate
    from itdeid.formats import read_corpus
    test_docs = read_corpus(tmp_path / "test.xml")
    n_gold = evaluate(test_docs, {d.id: [] for d in test_docs}).to_dict()["summary"]["token_8way"]["n_gold"]
    assert scores["BASELINE"]["token_8way"]["n_gold"] == n_gold > 0


def test_table1_resumes_from_fold_checkpoints(tmp_path, monkeypatch):
    """A rerun reuses finished folds (same table), and refuses folds of other settings."""
    argv, out = tiny_table1(tmp_path)
    monkeypatch.setattr(sys, "argv", argv)
    run_script("table1.py")
    first = (out / "table1.csv").read_text()
    (out / "folds" / "fold-1.npz").unlink()                   # as if killed during fold 2
    stamp = (out / "folds" / "fold-0.npz").stat().st_mtime_ns
    run_script("table1.py")
    assert (out / "folds" / "fold-0.npz").stat().st_mtime_ns == stamp   # fold 1 not redone
    assert (out / "table1.csv").read_text() == first
    monkeypatch.setattr(sys, "argv", argv[:-2] + ["--seed", "3", "--out", str(out)])
    with pytest.raises(SystemExit, match="other settings"):
        run_script("table1.py")
    # the same path and size, other gold: an edited corpus resumed on the old one's folds
    corpus = tmp_path / "tiny.xml"
    corpus.write_text(corpus.read_text().replace('TYPE="PHONE"', 'TYPE="ID"'))
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit, match="other settings"):
        run_script("table1.py")


def test_table1_peers_join_finished_folds_without_redoing_them(tmp_path, monkeypatch):
    """--peers adds issue E's peer rows in the same folds; on a resumed run only the peers are
    computed for folds already finished, and the system's rows stay as they were."""
    import pandas as pd
    argv, out = tiny_table1(tmp_path)
    monkeypatch.setattr(sys, "argv", argv)
    run_script("table1.py")
    before = pd.read_csv(out / "table1.csv").set_index("row")
    seconds = (out / "folds" / "seconds.json").read_text()
    monkeypatch.setattr(sys, "argv", argv + ["--peers", "RULES,CRF"])
    run_script("table1.py")
    after = pd.read_csv(out / "table1.csv").set_index("row")
    assert {"RULES", "CRF"} <= set(after.index)
    pd.testing.assert_frame_equal(after.drop(index=["RULES", "CRF"]), before)
    assert (out / "folds" / "seconds.json").read_text() == seconds      # the system was not refit
    import json
    peer_seconds = json.loads((out / "folds" / "peer-seconds.json").read_text())
    assert {p: sorted(v) for p, v in peer_seconds.items()} == {"RULES": ["0", "1"], "CRF": ["0", "1"]}
    assert "; RULES" in (out / "table1.md").read_text()
    monkeypatch.setattr(sys, "argv", argv + ["--peers", "BOGUS"])
    with pytest.raises(SystemExit, match="unknown peers BOGUS"):
        run_script("table1.py")


def test_iteration_effect_script_counts_what_a_table1_run_changed(tmp_path, monkeypatch):
    """iteration_effect.py reads a Table 1 run's folds; its counts add up to the tokens whose
    label ITR1 changed (issue H: what the iterations fixed and broke)."""
    import numpy as np
    argv, out = tiny_table1(tmp_path)
    monkeypatch.setattr(sys, "argv", argv)
    run_script("table1.py")
    monkeypatch.setattr(sys, "argv", ["iteration_effect.py", "--results", str(out)])
    with pytest.raises(SystemExit) as done:
        run_script("iteration_effect.py")
    assert done.value.code == 0
    text = (out / "iteration-effect.md").read_text()
    assert "## ITR1_VOTE_STD against ITR0_VOTE_STD" in text and "- command:" in text
    changed = int(text.split("Tokens whose label differs: ")[1].split(".")[0])
    section = text.split("## ITR1_VOTE_STD against ITR0_VOTE_STD")[1]
    row = next(line for line in section.splitlines() if line.startswith("| all |"))
    counts = [int(x) for x in row.strip("|").split("|")[2:]]
    assert sum(counts) <= changed
    base = np.concatenate([np.load(p)["ITR0_VOTE_STD"] for p in sorted((out / "folds").glob("fold-*.npz"))])
    step = np.concatenate([np.load(p)["ITR1_VOTE_STD"] for p in sorted((out / "folds").glob("fold-*.npz"))])
    assert changed == int((base != step).sum())


def test_figure2_script(tmp_path, monkeypatch):
    write_i2b2_2006(tiny_corpus(12, seed=7), tmp_path / "tiny.xml")
    out = tmp_path / "f2"
    monkeypatch.setattr(sys, "argv", ["figure2.py", "--corpus", str(tmp_path / "tiny.xml"), "--folds", "2",
                                      "--n-estimators", "2", "--n-jobs", "1", "--out", str(out)])
    run_script("figure2.py")
    import pandas as pd
    steps = pd.read_csv(out / "figure2.csv")
    from itdeid.featurize import GROUPS
    assert sorted(steps["added"]) == sorted(GROUPS)           # every group added exactly once
    assert "Every candidate" in (out / "figure2.md").read_text()


def test_headings_script(tmp_path, monkeypatch, capsys):
    write_i2b2_2006(tiny_corpus(12, seed=6), tmp_path / "tiny.xml")
    out = tmp_path / "h.md"
    monkeypatch.setattr(sys, "argv", ["headings.py", "--corpus", str(tmp_path / "tiny.xml"), "--out", str(out)])
    run_script("headings.py")
    text = out.read_text()
    assert "unambiguous (entropy < 0.1, >= 5 PHI tokens)" in text and "- code:" in text


def test_bench_script(tmp_path, monkeypatch):
    """The benchmark runs itdeid deid as a user would and writes every measure it promises."""
    from itdeid.estimators.deidentifier import Deidentifier
    docs = tiny_corpus(12, seed=5)
    write_i2b2_2006(docs, tmp_path / "tiny.xml")
    Deidentifier(iterations=1, model_params={"n_estimators": 2, "n_jobs": 1, "previous": "gold"}).fit(
        docs).save(tmp_path / "model")
    cv = tmp_path / "cv"
    cv.mkdir()
    (cv / "results.csv").write_text("row,9way_F,8way_P,8way_R,8way_F,8way_F_fold_sd,seconds\n"
                                    "C4.5,99.0,60.0,60.0,60.0,1.0,87.5\n")
    t1 = tmp_path / "t1"
    t1.mkdir()
    (t1 / "table1.md").write_text("- wall time: 700 s\n\n| row | model | 9way_F | 8way_P | 8way_R | 8way_F |\n"
                                  "| ITR0_VOTE_STD | vote | 99.1 | 60.0 | 60.0 | 60.00 |\n"
                                  "| ITR2_VOTE_STD | vote | 99.2 | 70.0 | 70.0 | 70.00 |\n")
    out = tmp_path / "bench.md"
    # a stand-in for deid.pl (no PHI found), run as the peer is, twice (--peer-repeats)
    fake = tmp_path / "deid"
    fake.mkdir()
    (fake / "deid.pl").write_text('select(undef, undef, undef, 0.3) if $ARGV[0] eq "x";\n'
                                  'open(my $f, ">", "$ARGV[0].phi") or die; close($f);\n')
    (fake / "deid.config").write_text("Gold standard comparison = 1\n")
    perl = shutil.which("perl") is not None
    monkeypatch.setattr(sys, "argv", ["bench.py", "--corpus", str(tmp_path / "tiny.xml"), "--model",
                                      str(tmp_path / "model"), "--scales", "1", "2", "--workers", "2",
                                      "--profile", "--profile-notes", "3", "--cv-results", str(cv), str(t1),
                                      "--peer-repeats", "2", "--deid", str(fake) if perl else "",
                                      "--out", str(out)])
    run_script("bench.py")
    text = out.read_text()
    if perl:
        # itdeid's one-core runs take turns with deid.pl's: as many, one before each
        ratio = re.search(r"One core, same run, tiny: .* The two took turns, .*\. Every run of the "
                          r"whole command: itdeid [\d.]+, [\d.]+ s; deid\.pl [\d.]+, [\d.]+ s\.", text)
        assert ratio and "| tiny | deid.pl 1.1 (peer) | 1 | 1 | 12 |" in text
    assert "- machine:" in text and "- command:" in text
    for label in ("| tiny | full pipeline | 1 | 1 | 12 |", "| tiny | full pipeline | 1 | 2 | 12 |",
                  "| tiny | single model | 1 | 1 | 12 |", "| tiny | full pipeline | 2 | 2 | 24 |"):
        assert label in text
    assert "| cv | C4.5 | 87.5 | 60.0 |" in text
    assert "| t1 | whole Table 1, every row and fold (ITR2_VOTE_STD F) | 700.0 | 70.0 |" in text
    assert "tottime" in text and "cumulative" in text and "Scaling" in text
    assert "Target (issue E)" in text and "xgboost prediction (inplace_predict)" in text


def test_ceiling_helpers_score_whitespace_tokens_and_stay_inside_notes():
    """experiments/ceiling.py: a whitespace token scores its best itdeid token and is PHI when most
    of its characters are; shifted columns never reach into another note; the lexicon oracle
    counts only the other folds' gold."""
    import numpy as np
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import ceiling
    finally:
        sys.path.remove(str(EXPERIMENTS))
    from itdeid.document import Document, Span
    from itdeid.featurize import tokenize_document
    text = "Seen by Dr. Wacht on 8/14."
    td = tokenize_document(Document("n", text, [Span(12, 17, "DOCTOR"), Span(21, 25, "DATE")]))
    p = np.linspace(0.0, 1.0, len(td.tokens))
    scores, gold = ceiling.whitespace_scores(td, p)
    words = text.split()
    assert len(scores) == len(words) == 6
    assert gold.tolist() == [False, False, False, True, False, True]   # 'Wacht', '8/14.' (4 of 5 characters)
    last = [k for k, t in enumerate(td.tokens) if t.start >= text.index("8/14")]
    assert scores[-1] == p[last].max()

    values = np.arange(5, dtype=np.float32)
    shifted = ceiling.neighbour_values(values, np.array([0, 0, 0, 1, 1]), (-1, 1), fill=-1.0)
    assert shifted.tolist() == [[-1, 1], [0, 2], [1, -1], [-1, 4], [3, -1]]

    lexicon = ceiling.oracle_lexicon(["x", "x", "y", "x"], np.array([1, 0, 0, 1]), np.array([0, 0, 1, 1]))
    assert lexicon[0].tolist() == [1, 1, 1.0]     # fold 0's 'x': fold 1 has one 'x', PHI
    assert lexicon[3].tolist() == [1, 2, 0.5]     # fold 1's 'x': fold 0 has two, one PHI


def test_cache_provenance_line_is_what_provenance_reads(tmp_path):
    """common.cache_provenance (levers.py's fold caches) writes the header line provenance.py
    reads the caches' commits from."""
    import numpy as np
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import common
        import provenance
    finally:
        sys.path.remove(str(EXPERIMENTS))
    for fold, code in ((0, "itdeid 0.1.0, git abc1234"), (1, "itdeid 0.1.0, git def5678")):
        (tmp_path / "cache" / "XGB_TOKEN").mkdir(parents=True, exist_ok=True)
        np.savez(tmp_path / "cache" / "XGB_TOKEN" / f"fold{fold}.npz", code=np.array(code))
    line = common.cache_provenance(tmp_path / "cache", ["XGB_TOKEN"], [0, 1, 2])
    assert line.startswith("- fold caches computed by: ") and line.endswith("\n") and line.count("\n") == 1
    results = tmp_path / "results.md"
    results.write_text("# t\n\n- code: git 1111111\n" + line + "- folds: 3\n")
    assert provenance.recorded_commits(results)[0] == ["1111111", "abc1234", "def5678"]
    assert common.cache_provenance(tmp_path / "cache", ["XGB_TOKEN"], [5]) == "- fold caches computed by: none\n"


def test_levers_records_the_code_the_run_started_with_in_every_fold(tmp_path, monkeypatch):
    """A commit made in the checkout during a long run was recorded as the code of the folds
    saved after it, though the process ran the modules it had loaded at the start."""
    import numpy as np
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import levers
    finally:
        sys.path.remove(str(EXPERIMENTS))
    write_i2b2_2006(tiny_corpus(12, seed=6), tmp_path / "tiny.xml")
    states = iter([f"itdeid 0.1.0, git {k}{k}{k}{k}{k}{k}{k}" for k in range(1, 9)])
    monkeypatch.setattr(levers, "code_version", lambda: next(states))
    assert levers.main([str(tmp_path / "tiny.xml"), "--out", str(tmp_path / "lv"), "--rows", "XGB_TOKEN",
                        "--folds", "3", "--n-jobs", "1"]) == 0
    for f in range(3):
        with np.load(tmp_path / "lv" / "cache" / "XGB_TOKEN" / f"fold{f}.npz") as saved:
            assert str(saved["code"]) == "itdeid 0.1.0, git 1111111"


def test_levers_refuses_a_fold_cache_of_other_folds_or_notes(tmp_path, monkeypatch):
    """A 3-fold cache was read by a 4-fold run (and another corpus's by this one) as its own."""
    write_i2b2_2006(tiny_corpus(12, seed=6), tmp_path / "tiny.xml")
    write_i2b2_2006(tiny_corpus(12, seed=7), tmp_path / "other.xml")

    def levers(corpus, *options):
        monkeypatch.setattr(sys, "argv", ["levers.py", str(tmp_path / corpus), "--out",
                                          str(tmp_path / "lv"), "--rows", "XGB_TOKEN", "--n-jobs", "1",
                                          *options])
        with pytest.raises(SystemExit) as end:
            run_script("levers.py")
        return end.value.code
    assert levers("tiny.xml", "--folds", "2") == 0
    for corpus, options in (("tiny.xml", ["--folds", "3"]), ("other.xml", ["--folds", "2", "--report-only"])):
        assert "fold0.npz: computed from other notes or folds" in str(levers(corpus, *options))
    assert levers("tiny.xml", "--folds", "2", "--report-only") == 0
    results = (tmp_path / "lv" / "results.md").read_text()
    # a report over folds no row has cached wrote an empty table over this one, status 0
    assert "has its 3 folds cached" in str(levers("tiny.xml", "--folds", "3", "--report-only"))
    assert (tmp_path / "lv" / "results.md").read_text() == results
    # --report names another file: results.md, the table of rows cached elsewhere, is kept
    assert levers("tiny.xml", "--folds", "2", "--report-only", "--report", "results-token.md") == 0
    assert "| XGB_TOKEN |" in (tmp_path / "lv" / "results-token.md").read_text()
    assert (tmp_path / "lv" / "results.md").read_text() == results


def test_recipe_row_tagging_as_the_recipe_joins_name_gaps(tmp_path):
    """The ``_SCREEN1E3_IDS`` rows are the recipe as it tags, but their spans left out the joined
    name gaps (``join_gaps``) the shipped ensemble applies, so the CV described another tagger."""
    import numpy as np
    from itdeid.document import LABELS, Document, Span
    from itdeid.featurize import tokenize_document
    sys.path.insert(0, str(EXPERIMENTS))
    try:
        import common
    finally:
        sys.path.remove(str(EXPERIMENTS))
    text = "Seen at Harborview Cardiology Associates today."
    gold = [Span(8, 18, "HOSPITAL"), Span(19, 29, "HOSPITAL"), Span(30, 40, "HOSPITAL")]
    td = tokenize_document(Document("d1", text, gold))
    proba = np.zeros((len(td.tokens), len(LABELS)), dtype=np.float32)
    proba[:, 0] = 1.0
    for i, token in enumerate(td.tokens):   # the middle word of the name falls below the threshold
        if token.text in ("Harborview", "Associates"):
            proba[i, [0, LABELS.index("HOSPITAL")]] = (0.1, 0.9)
    prefix = "BAG5_CTX_TWO_STEP_SHALLOW_SYN_REAL_TRIAL_REFIT_TYPER50"
    folder = tmp_path / common.cache_name(f"{prefix}_SCREEN1E3_IDS")
    folder.mkdir()
    np.savez(folder / "fold0.npz", corpus_key=np.array(common.corpus_key([td], [0])), proba=proba,
             lengths=np.array([len(proba)]), threshold=np.array(0.5), seconds=np.array(1.0),
             **{"screen0.001_first": proba, "screen0.001_second": proba})
    spans = {row: [(s.start, s.end) for s in common.cached_fold(row, [td], [0], tmp_path, 0)["spans"]["d1"]]
             for row in (f"{prefix}_SCREEN1E3_OOF", f"{prefix}_SCREEN1E3_IDS")}
    assert spans[f"{prefix}_SCREEN1E3_OOF"] == [(8, 18), (30, 40)]    # the ranking's row: decisions alone
    assert spans[f"{prefix}_SCREEN1E3_IDS"] == [(8, 40)]              # as the recipe tags


def test_thresholds_patient_bootstrap_draws_patients_not_notes():
    """Two patients, one of two notes found whole and one of one note missed whole: a draw
    meets the goals only when it holds the first patient twice (a quarter of the draws), and
    the 5th percentiles are a draw of the second patient alone, 0."""
    import importlib.util
    from itdeid.document import Document, Span
    from itdeid.evaluation.evaluate import evaluate

    spec = importlib.util.spec_from_file_location("thresholds", EXPERIMENTS / "thresholds.py")
    module = importlib.util.module_from_spec(spec)
    path = list(sys.path)
    sys.path.insert(0, str(EXPERIMENTS))     # as python experiments/thresholds.py runs
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    docs = [Document(id=f"a{i}", text="Seen by Smith today.", spans=[Span(8, 13, "DOCTOR")], patient="A")
            for i in range(2)] + [Document(id="b", text="Seen by Jones today.", spans=[Span(8, 13, "DOCTOR")], patient="B")]
    predicted = {"a0": [Span(8, 13, "DOCTOR")], "a1": [Span(8, 13, "DOCTOR")], "b": []}
    out = module.patient_bootstrap(evaluate(docs, predicted), docs, 4000, 0, (0.95, 0.85, 0.95))
    assert 22 < out["draws meeting the goals"] < 28
    assert out["R 5th pct"] == 0.0 and out["P 5th pct"] == 0.0     # nothing predicted where PHI was


def test_start_up_script_times_both_commands_for_two_checkouts(tmp_path, monkeypatch):
    """experiments/start_up.py: each command, one core and all, for each version, turn about."""
    from itdeid.estimators.model import TokenModel
    root = EXPERIMENTS.parent
    if not (root / ".git").exists() or shutil.which("git") is None:
        pytest.skip("needs the git checkout")
    TokenModel(n_estimators=2, n_jobs=1, previous="gold").fit(tiny_corpus(8, seed=3)).save(tmp_path / "m")
    out = tmp_path / "start-up.md"
    monkeypatch.setattr(sys, "argv", ["start_up.py", "--model", str(tmp_path / "m"), "--rev", "HEAD",
                                      "--rev", "HEAD", "--commands", "tag", "--rounds", "1",
                                      "--out", str(out)])
    run_script("start_up.py")
    rows = re.findall(r"^\| itdeid tag \| (\d+) \| [^|]+ \| [\d.]+ \| [\d.]+ \|$", out.read_text(), re.M)
    assert len(rows) == 4 and rows[:2] == ["1", "1"]     # each version, one core then all


def test_install_size_counts_each_package_with_its_metadata_and_libraries(tmp_path):
    """experiments/install_size.py's breakdown: a package's .dist-info and .libs folders count
    with it, links are not followed, loose files count alone (the install itself needs the
    network, so it is not run here)."""
    script = script_functions("install_size.py")
    site = tmp_path / "site-packages"
    for folder, size in [("numpy/core", 300), ("numpy-2.0.dist-info", 20), ("numpy.libs", 100),
                         ("xgboost", 50), ("xgboost_cpu-3.2.0.dist-info", 5)]:
        (site / folder).mkdir(parents=True)
        (site / folder / "f.bin").write_bytes(b"x" * size)
    (site / "six.py").write_bytes(b"y" * 7)
    (site / "numpy" / "link").symlink_to(site / "numpy.libs" / "f.bin")
    sizes = script["package_bytes"](site)
    assert sizes == {"numpy": 420, "xgboost": 50, "xgboost_cpu": 5, "six": 7}
    assert script["folder_bytes"](site) == 482


def test_model_rebuild_compares_every_file_either_folder_lists(tmp_path):
    """experiments/model_rebuild.py's verdicts from two SHA256SUMS files (the training itself
    needs the PhysioNet split and minutes, so it is not run here)."""
    script = script_functions("model_rebuild.py")
    for name, lines in [("a", ["11  ensemble.json", "22  member-0/model.json", "33  old.json"]),
                        ("b", ["11  ensemble.json", "99  member-0/model.json", "44  new.json"])]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "SHA256SUMS").write_text("\n".join(lines) + "\n")
    shipped, rebuilt = script["digests"](tmp_path / "a"), script["digests"](tmp_path / "b")
    assert shipped["member-0/model.json"] == "22"
    assert script["compare"](shipped, rebuilt) == [
        ("ensemble.json", "same"), ("member-0/model.json", "differs"), ("new.json", "only rebuilt"),
        ("old.json", "only shipped")]


def _tiny_learner_file(path: Path, seed: int = 0, nudge: float = 0.0) -> Path:
    """A 3-tree xgboost model on seeded random data, saved as the model folders save learners
    (gzip-compressed UBJSON), with ``nudge`` added to the first leaf of tree 1 (its split
    condition and base weight) when given. Seed 0's label depends on columns 0 and 1, any
    other seed's on columns 2 and 3 (so their trees split on other features)."""
    import gzip
    import json

    import numpy as np
    import xgboost
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(200, 4))
    first = 0 if seed == 0 else 2
    y = (x[:, first] + 0.5 * x[:, first + 1] > 0).astype(int)
    booster = xgboost.train({"max_depth": 2, "eta": 0.3, "objective": "binary:logistic", "nthread": 1,
                             "seed": 0}, xgboost.DMatrix(x, label=y), num_boost_round=3)
    if nudge:
        model = json.loads(booster.save_raw("json"))
        tree = model["learner"]["gradient_booster"]["model"]["trees"][1]
        leaf = tree["left_children"].index(-1)
        tree["split_conditions"][leaf] += nudge
        tree["base_weights"][leaf] += nudge
        booster = xgboost.Booster()
        booster.load_model(bytearray(json.dumps(model).encode()))
    path.write_bytes(gzip.compress(bytes(booster.save_raw("ubj"))))
    return path


def test_model_rebuild_compares_trees_node_by_node(tmp_path):
    """model_rebuild.py's tree comparison: two copies of one model are the same in structure with
    no difference; a leaf moved by 0.01 is found, as a leaf value and a base weight, with the
    structure still the same; a model grown from other data differs in structure."""
    script = script_functions("model_rebuild.py")
    compare = script["compare_learner_files"]
    a = _tiny_learner_file(tmp_path / "a.ubj.gz")
    same = compare(a, _tiny_learner_file(tmp_path / "b.ubj.gz"))
    assert same["trees"] == (3, 3) and same["structure_same"] and same["base_score_same"]
    assert same["split_conditions"] == same["base_weights"] == (0.0, 0.0)
    assert same["values_differ"] == 0 < same["values"]
    nudged = compare(a, _tiny_learner_file(tmp_path / "c.ubj.gz", nudge=0.01))
    assert nudged["structure_same"] and nudged["values_differ"] == 2
    assert nudged["leaf_values"][0] == pytest.approx(0.01, rel=1e-4)
    assert nudged["base_weights"][0] == pytest.approx(0.01, rel=1e-4)
    assert nudged["thresholds"] == (0.0, 0.0) and nudged["leaf_values"][1] > 0
    other = compare(a, _tiny_learner_file(tmp_path / "d.ubj.gz", seed=1))
    assert not other["structure_same"]


def test_model_rebuild_compares_spans_note_by_note():
    """model_rebuild.py's label comparison: counts, ids and digests; a span whose class changed
    counts on both sides."""
    from itdeid.document import Span
    script = script_functions("model_rebuild.py")
    shipped = [[Span(0, 4, "DATE")], [Span(2, 5, "DOCTOR"), Span(8, 9, "AGE")]]
    same = script["compare_labels"](["n1", "n2"], shipped, [list(s) for s in shipped])
    assert same["notes"] == 2 and same["spans"] == (3, 3) and same["differ"] == 0
    assert same["notes_differ"] == [] and same["digest"][0] == same["digest"][1]
    rebuilt = [[Span(0, 4, "DATE")], [Span(2, 5, "PATIENT"), Span(8, 9, "AGE")]]
    changed = script["compare_labels"](["n1", "n2"], shipped, rebuilt)
    assert changed["differ"] == 2 and changed["notes_differ"] == ["n2"]
    assert changed["digest"][0] != changed["digest"][1]


def test_the_lockbox_is_a_seeded_draw_of_patient_numbers_read_from_record_lines_only(tmp_path):
    lockbox = script_functions("lockbox.py")
    records = "".join(f"START_OF_RECORD={p}||||{n}||||\nA line of text {p}||||\n||||END_OF_RECORD\n"
                      for p in (3, 10, 2, 41, 7, 5) for n in (1, 2))
    (tmp_path / "id.text").write_text(records + "START_OF_RECORD=x||||1||||\n", encoding="latin-1")
    patients = lockbox["physionet_patients"](tmp_path)
    assert patients == ["2", "3", "5", "7", "10", "41"]          # numerically sorted, no text
    chosen = lockbox["draw"](patients, size=3, seed=1)
    assert chosen == lockbox["draw"](patients, size=3, seed=1) and len(set(chosen)) == 3
    assert set(chosen) < set(patients) and chosen != lockbox["draw"](patients, size=3, seed=2)
    with pytest.raises(SystemExit, match="lockbox takes"):
        lockbox["draw"](patients, size=6)
    # the committed lockbox: 20 patients, kept out of what choices are made on
    closed = lockbox["lockbox_patients"]()
    assert len(closed) == lockbox["SIZE"] == 20

    class Doc:
        def __init__(self, patient):
            self.patient = patient
    kept = lockbox["open_documents"]([Doc(p) for p in sorted(closed)] + [Doc("synthetic:1")])
    assert [d.patient for d in kept] == ["synthetic:1"]


def test_removals_puts_a_removed_entry_back_for_the_passes_and_takes_it_out_again():
    """experiments/removals.py scores the passes with a removed word-list entry added again:
    the pass modules see it while put back, and the lists are as they were afterwards."""
    from itdeid.passes.clinical_terms import clinical_terms, medicine_words
    from itdeid.passes.identifiers import plain_matches
    removals = script_functions("removals.py")
    text = "seen with qqzx 12 today"
    shape = {"kind": "test", "pattern": r"(?<![\w])(?P<plain>qqzx[ \t]\d\d)(?![\w])"}
    assert not plain_matches(text) and "zzqterm" not in clinical_terms()
    with removals["put_back"]([(("features", "identifiers.json", "plain"), 0, shape),
                               (("features", "clinical_terms.json", "terms"), 0, "zzqterm")]):
        assert [text[a:b] for a, b, _ in plain_matches(text)] == ["qqzx 12"]
        assert "zzqterm" in clinical_terms() and "zzqterm" in medicine_words()
    assert not plain_matches(text) and "zzqterm" not in clinical_terms() and "zzqterm" not in medicine_words()
    assert removals["entry_digest"](shape) == removals["entry_digest"](dict(reversed(list(shape.items()))))


def test_the_scripts_that_make_choices_read_the_physionet_split_without_the_lockbox(tmp_path, capsys, monkeypatch):
    """levers.py, identifier_templates.py and headings.py read their corpus through
    common.read_choice_corpus: a PhysioNet folder loses the lockbox patients' notes, another
    corpus is read whole."""
    from itdeid.document import Document, Span
    from itdeid.formats import write_i2b2_2006, write_physionet
    monkeypatch.syspath_prepend(str(EXPERIMENTS))        # as ``python experiments/NAME.py`` runs
    common = script_functions("common.py")
    closed = sorted(script_functions("lockbox.py")["lockbox_patients"](), key=int)
    docs = [Document(f"{p}-{n}", f"Seen on 3/{n}.\n", [Span(8, 11, "DATE")], patient=p)
            for p in (closed[0], "999", closed[1], "1000") for n in (1, 2)]
    (tmp_path / "physionet").mkdir()
    write_physionet(docs, tmp_path / "physionet" / "id.text")
    kept = common["read_choice_corpus"](tmp_path / "physionet")
    assert sorted({d.patient for d in kept}) == ["1000", "999"] and len(kept) == 4
    assert "4 notes of the lockbox's patients left out (4 notes kept)" in capsys.readouterr().err
    write_i2b2_2006(docs, tmp_path / "i2b2.xml")
    assert len(common["read_choice_corpus"](tmp_path / "i2b2.xml")) == 8
    for script in ("levers.py", "identifier_templates.py", "headings.py"):
        source = (EXPERIMENTS / script).read_text()
        assert "read_choice_corpus(args.corpus)" in source and "read_corpus(" not in source


def test_m_acceptance_reads_the_cv_row_and_the_lockbox_s_last_row(tmp_path):
    script = script_functions("m_acceptance.py")
    table = tmp_path / "pass-table.md"
    table.write_text("| corpus | configuration | binary P | binary R | found | typed F |\n|---|---|---|---|---|---|\n"
                     "| PhysioNet open CV | all passes | 73.68 | 95.84 | 97.07 | 78.74 |\n"
                     "| PhysioNet open CV | no pass | 57.49 | 93.22 | 94.58 | 66.44 |\n", encoding="utf-8")
    assert script["cv_row"](table) == pytest.approx({"P": 0.7368, "R": 0.9584, "found": 0.9707, "F": 0.7874})
    box = tmp_path / "lockbox.md"
    box.write_text("| scored (UTC) | commit | recipe settings | lockbox | trained on | binary P | binary R | found "
                   "| typed F | machine |\n|---|---|---|---|---|---|---|---|---|---|\n"
                   "| 2026-12-08 00:55 | aaa | s1 | 20 patients | 1297 | 0.7984 | 0.9581 | 0.9762 | 0.8541 | x |\n"
                   "| 2026-12-08 03:53 | bbb | s2 | 20 patients | 1297 | 0.7833 | 0.9581 | 0.9762 | 0.8452 | y |\n",
                   encoding="utf-8")
    assert script["lockbox_row"](box) == ("bbb", {"P": 0.7833, "R": 0.9581, "found": 0.9762, "F": 0.8452})
    table.write_text("no rows\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="no PhysioNet 'all passes' row"):
        script["cv_row"](table)
    # the committed files parse
    assert 0 < script["cv_row"](EXPERIMENTS / "results" / "pass-table.md")["P"] < 1
    assert len(script["lockbox_row"](EXPERIMENTS / "results" / "lockbox.md")[0]) >= 7
