"""The classifiers behind a token model, with one interface and safe model files.

``xgboost`` (default)
    Gradient-boosted trees (hist method, multi-class soft-probabilities). 200 rounds of depth-6
    trees with learning rate 0.2 and column subsampling 0.8: enough capacity for ~130 attributes
    and a few hundred thousand tokens, trained in about a minute on two cores.
``adaboost``
    The paper's learner: AdaBoostM1 over C4.5 trees, 30 rounds, at least 5 instances a leaf,
    here scikit-learn's ``AdaBoostClassifier`` (SAMME) over entropy ``DecisionTreeClassifier``s
    with ``min_samples_leaf=5``. C4.5 prunes a grown tree by error estimates at confidence
    0.25-0.35 (the paper used 0.35); scikit-learn does not prune that way, so the trees are
    bounded by ``min_samples_leaf`` (and ``max_depth``, default none) alone and may be larger.
``tree``
    One such entropy tree: the paper's C4.5 baseline row.
``majority``
    Every token non-PHI: the paper's BASELINE row.

With ``two_step``, a learner says PHI or not first and which PHI class second: a two-class model
over every token (one tree a boosting round, where a nine-class model grows nine), and a model
over the PHI tokens alone that names the class, asked only for tokens whose P(PHI) reaches
:data:`TYPE_FLOOR`. Most tokens of a note are plainly ordinary text, so tagging grows about a
ninth of the trees, and training too; whether the PHI-or-not ranking holds is measured
in cross-validation folds (experiments/levers.py, rows ``*_TWO_STEP``). The class model may grow fewer
trees than the PHI-or-not model (``typer_estimators``, ``typer_learning_rate``): naming the class
of a token known to be PHI is the easy half (the regex, trigger and name-list columns say most
of it), yet with eight classes it grows eight trees a round, and asked of every token that one
member scores above :data:`TYPE_FLOOR` it took a large share of the recipe's tree time.

Model files are data only, and nothing in them runs code when loaded: xgboost's own UBJSON
format for ``xgboost`` (gzip-compressed, unpacked to at most :data:`MAX_LEARNER_BYTES`), the
trees' arrays in JSON (:mod:`itdeid.estimators.plain_trees`) for ``tree`` and ``adaboost``, the class prior
in ``model.json`` for ``majority``. A file name in ``model.json`` must be a learner file of its
kind, inside the model folder; anything wrong with a file is a :class:`~itdeid.errors.UserError`
naming it. A damaged file can also load and then answer NaN or no distribution at all (a NaN
leaf or base score, an all-NaN prior, a tree leaf of zero weights), which the operating point
reads as "not PHI" for every token: so every answer is checked to be a probability distribution
(:func:`checked_distribution`), and one that is not stops the run naming the file.
"""
from __future__ import annotations

import gzip
import json
import zlib
from pathlib import Path

import numpy as np

from itdeid.document import LABELS
from itdeid.errors import UserError
from itdeid.model_folder.model_files import (check_entries, check_size, checked_params, is_finite_number, model_part,
                                             read_json_file)
from itdeid.estimators.plain_trees import PlainTrees

LEARNERS = ("xgboost", "adaboost", "tree", "majority")
N_LABELS = len(LABELS)
#: A ``two_step`` learner names the class of tokens whose P(PHI) reaches this only. It is the
#: lowest threshold the operating point allows (:data:`itdeid.estimators.operating_point.MIN_THRESHOLD`):
#: below it a token is ordinary text at any threshold, so its class is never read. Its PHI mass
#: is shared evenly among the classes instead (at most ``TYPE_FLOOR / 8`` a class, too little to
#: change the class a mean over several models gives a token one of them calls PHI).
TYPE_FLOOR = 1e-3
#: Subfolders of a two-step learner's folder: its PHI-or-not model and its class model.
DETECTOR_FOLDER, TYPER_FOLDER = "detector", "typer"


class Learner:
    """A classifier over the nine token labels (codes 0..8), whatever labels training had.

    ``predict_proba`` always returns 9 columns, so models trained on folds that lack a rare
    class (AGE) still vote and combine with the others. ``two_step``: see the module docstring
    (with two classes, it is one two-class model: for xgboost a logistic one, a tree a round).
    """

    def __init__(self, name: str = "xgboost", n_estimators: int | None = None, max_depth: int | None = None,
                 learning_rate: float | None = None, min_samples_leaf: int = 5, n_jobs: int | None = None,
                 device: str = "cpu", random_state: int = 0, two_step: bool = False,
                 subsample: float | None = None, phi_weight: float = 1.0,
                 typer_estimators: int | None = None, typer_learning_rate: float | None = None):
        if name not in LEARNERS:
            raise ValueError(f"learner must be one of {', '.join(LEARNERS)}, got {name!r}")
        self.name = name
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.learning_rate = learning_rate
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.device = device
        self.random_state = random_state
        self.two_step = two_step
        self.subsample = subsample
        self.phi_weight = phi_weight
        self.typer_estimators = typer_estimators
        self.typer_learning_rate = typer_learning_rate

    def _part(self, two_step: bool, **change) -> "Learner":
        """A learner of the same kind and parameters but ``change`` (a part of a two-step
        learner)."""
        return Learner(**{**self.params(), "two_step": two_step, **change})

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> "Learner":
        y = np.asarray(y, dtype=np.int64)
        self.classes_ = np.unique(y)
        self.detector_ = self.typer_ = None
        if self.two_step and len(self.classes_) > 2:
            return self._fit_two_step(X, y, sample_weight)
        if self.phi_weight != 1.0:   # every PHI row (label > 0) weighs phi_weight times its weight
            base = np.ones(len(y), dtype=np.float32) if sample_weight is None else np.asarray(sample_weight)
            sample_weight = np.where(y != 0, self.phi_weight, 1.0).astype(np.float32) * base
        encoded = np.searchsorted(self.classes_, y)
        if self.name == "majority" or len(self.classes_) == 1:
            counts = np.bincount(y, weights=sample_weight, minlength=N_LABELS)
            self.prior_ = counts / counts.sum()
            self.estimator_ = None
            return self
        if self.name == "xgboost":
            import xgboost
            if self.device != "cpu" and not xgboost.build_info().get("USE_CUDA", False):
                raise UserError(f"device {self.device!r} needs an xgboost built with CUDA, and this one is "
                                "CPU only (itdeid installs xgboost-cpu on Linux and Windows); for "
                                "NVIDIA GPUs: pip uninstall xgboost-cpu && pip install xgboost")
            params = dict(
                n_estimators=self.n_estimators or 200, max_depth=self.max_depth or 6,
                learning_rate=self.learning_rate or 0.2, colsample_bytree=0.8, tree_method="hist",
                objective="multi:softprob", device=self.device, n_jobs=self.n_jobs,
                random_state=self.random_state, max_bin=256)
            if self.subsample is not None:   # else xgboost's own default, all rows
                params["subsample"] = self.subsample
            if len(self.classes_) == 2 and self.two_step:
                params["objective"] = "binary:logistic"
            elif len(self.classes_) == 2:   # the wrapper sets num_class for three classes or more only
                params["num_class"] = 2
            self.estimator_ = xgboost.XGBClassifier(**params).fit(X, encoded, sample_weight=sample_weight)
        else:
            from sklearn.ensemble import AdaBoostClassifier
            from sklearn.tree import DecisionTreeClassifier
            tree = DecisionTreeClassifier(criterion="entropy", min_samples_leaf=self.min_samples_leaf,
                                          max_depth=self.max_depth, random_state=self.random_state)
            if self.name == "tree":
                self.estimator_ = tree.fit(X, encoded, sample_weight=sample_weight)
            else:
                self.estimator_ = AdaBoostClassifier(tree, n_estimators=self.n_estimators or 30,
                                                     random_state=self.random_state).fit(
                    X, encoded, sample_weight=sample_weight)
        return self

    def _fit_two_step(self, X, y, sample_weight) -> "Learner":
        """The PHI-or-not model over all rows, then the class model over the PHI rows (none when
        the rows hold one PHI class only)."""
        phi = y != 0
        self.detector_ = self._part(True).fit(X, phi.astype(np.int64), sample_weight)
        if len(np.unique(y[phi])) > 1:   # all PHI rows: the class model weighs them as given
            weights = None if sample_weight is None else np.asarray(sample_weight)[phi]
            typer = self._part(False, phi_weight=1.0, typer_estimators=None, typer_learning_rate=None,
                               n_estimators=self.typer_estimators or self.n_estimators,
                               learning_rate=self.typer_learning_rate or self.learning_rate)
            self.typer_ = typer.fit(X[phi], y[phi], weights)
        self.estimator_ = None
        return self

    def _predict_two_step(self, X: np.ndarray, out: np.ndarray, rounds: int | None = None) -> np.ndarray:
        p_phi = 1.0 - self.detector_.predict_proba(X, rounds)[:, 0]
        out[:, 0] = 1.0 - p_phi
        kinds = self.classes_[self.classes_ != 0]
        if self.typer_ is None:
            out[:, kinds[0]] = p_phi
            return out
        out[:, kinds] = (p_phi / len(kinds))[:, None]
        sure = np.flatnonzero(p_phi >= TYPE_FLOOR)
        if len(sure):
            out[sure, 1:] = p_phi[sure, None] * self.typer_.predict_proba(X[sure])[:, 1:]
        return out

    def predict_proba(self, X: np.ndarray, rounds: int | None = None) -> np.ndarray:
        """Probabilities of the 9 labels, shape (n, 9), checked (:func:`checked_distribution`).
        ``rounds``: from the first that many boosting rounds of an xgboost model only (of a
        two-step learner, of its PHI-or-not model; the class model is whole): a cheaper first
        look (:class:`~itdeid.estimators.ensemble.InnerEnsemble`'s ``screen_rounds``). Other learners
        ignore it."""
        out = np.zeros((len(X), N_LABELS), dtype=np.float32)
        if len(X) == 0:
            return out
        if getattr(self, "detector_", None) is not None:
            return self._predict_two_step(X, out, rounds)
        if self.estimator_ is None:
            out[:] = getattr(self, "prior_", np.eye(N_LABELS)[0])
            return out
        if self.name == "xgboost":
            booster = self.estimator_.get_booster()
            if not getattr(self, "_one_thread", False):
                # Tagging calls the classifier once a token position on a few hundred rows, where
                # waking a team of threads costs far more than it saves; parallel tagging comes
                # from worker processes.
                # Trees trained on a GPU (--device cuda) predict on the CPU too: these rows are
                # numpy arrays in host memory, and xgboost would otherwise copy each small batch
                # to the card (warning of the mismatch) for no gain.
                booster.set_param({"nthread": 1, "device": "cpu"})
                self._one_thread = True
            if rounds is not None and rounds < booster.num_boosted_rounds():
                proba = booster.inplace_predict(X, iteration_range=(0, rounds))
            else:
                proba = booster.inplace_predict(X)
            if proba.ndim == 1:   # a logistic model: P(the second class)
                proba = np.column_stack([1.0 - proba, proba])
        else:
            # a fitted scikit-learn estimator, or the same trees loaded from their arrays
            proba = self.estimator_.predict_proba(X)
        out[:, self.classes_] = proba
        return checked_distribution(out, getattr(self, "source_", "the learner"))

    # -- persistence ------------------------------------------------------------------------
    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("name", "n_estimators", "max_depth", "learning_rate",
                                               "min_samples_leaf", "n_jobs", "device", "random_state",
                                               "two_step", "subsample", "phi_weight", "typer_estimators",
                                               "typer_learning_rate")}

    def save(self, folder: Path) -> dict:
        """Write the fitted estimator into ``folder``; returns metadata for the model file (a
        two-step learner's parts go to two subfolders, their metadata nested in it)."""
        meta = {"params": self.params(), "classes": self.classes_.tolist()}
        if getattr(self, "detector_", None) is not None:
            meta["detector"] = self.detector_.save(_subfolder(folder, DETECTOR_FOLDER))
            meta["typer"] = None if self.typer_ is None else self.typer_.save(_subfolder(folder, TYPER_FOLDER))
            return meta
        if self.estimator_ is None:
            meta["prior"] = self.prior_.tolist()
        elif self.name == "xgboost":
            # UBJSON compressed: a depth-4 booster's node arrays shrink about sixfold, which keeps
            # the shipped ensemble (five members' class models) small; mtime 0, so the
            # same model gives the same bytes
            raw = self.estimator_.get_booster().save_raw("ubj")
            (folder / LEARNER_FILES["xgboost"]).write_bytes(gzip.compress(raw, compresslevel=6, mtime=0))
            meta["file"] = LEARNER_FILES["xgboost"]
        else:
            trees = self.estimator_
            if not isinstance(trees, PlainTrees):
                trees = PlainTrees.from_sklearn(trees, self.estimator_.n_features_in_)
            (folder / LEARNER_FILES["trees"]).write_text(json.dumps(trees.to_json()), encoding="utf-8")
            meta["file"] = LEARNER_FILES["trees"]
        return meta

    @classmethod
    def load(cls, folder: Path, meta: dict, n_features: int, typer: bool = False) -> "Learner":
        """The learner described by ``meta`` (the ``learner`` entry of ``model.json``), reading
        its file from ``folder``; ``n_features`` is the width of the model's feature matrix.
        Its classes include non-PHI (0), but for a two-step learner's class model (``typer``),
        which has PHI classes only. Every problem is a :class:`UserError` naming the file."""
        check_entries(Path(folder) / "model.json", meta,
                      ("params", "classes", "detector", "typer", "prior", "file"), "a learner's entry")
        learner = cls(**checked_params(Path(folder) / "model.json", meta["params"], cls))
        classes = meta["classes"]
        if (not isinstance(classes, list) or not classes or classes != sorted(set(classes))
                or not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < N_LABELS
                           for c in classes)):
            raise ValueError(f"learner classes must be distinct label codes 0..{N_LABELS - 1}")
        if (0 in classes) == typer:
            raise ValueError("a class model's classes must be PHI classes only" if typer else
                             "learner classes must include non-PHI (0)")
        learner.classes_ = np.array(classes, dtype=np.int64)
        learner.detector_ = learner.typer_ = None
        learner.source_ = str(Path(folder) / "model.json")
        if "detector" in meta:
            return learner._load_two_step(Path(folder), meta, n_features)
        if "prior" in meta:
            prior = meta["prior"]
            if not (isinstance(prior, list) and len(prior) == N_LABELS and all(map(is_finite_number, prior))
                    and _is_distribution(np.array([prior], dtype=np.float64))):
                raise ValueError(f"the prior needs {N_LABELS} numbers, at least 0, summing to 1")
            learner.prior_ = np.array(prior, dtype=np.float64)
            learner.estimator_ = None
            return learner
        path = learner_path(folder, meta.get("file"))
        learner.source_ = str(path)
        if path.name in XGBOOST_FILES:
            logistic = learner.two_step and len(learner.classes_) == 2
            learner.estimator_ = _load_booster(path, len(learner.classes_), n_features, logistic)
        else:
            trees = PlainTrees.from_json(read_json_file(path), path)
            if trees.n_classes != len(learner.classes_) or trees.n_features != n_features:
                raise UserError(f"{path}: trees of {trees.n_classes} classes over {trees.n_features} "
                                f"features, but the model has {len(learner.classes_)} and {n_features}")
            learner.estimator_ = trees
        return learner

    def _load_two_step(self, folder: Path, meta: dict, n_features: int) -> "Learner":
        """The parts of a two-step learner (``load`` has read its own params and classes)."""
        if not self.two_step or len(self.classes_) < 3:
            raise ValueError("only a two-step learner of three classes or more has a detector")
        self.detector_ = Learner.load(model_part(folder, DETECTOR_FOLDER), meta["detector"], n_features)
        if self.detector_.classes_.tolist() != [0, 1]:
            raise ValueError("the detector must say PHI (1) or not (0)")
        if meta["typer"] is not None:
            self.typer_ = Learner.load(model_part(folder, TYPER_FOLDER), meta["typer"], n_features,
                                       typer=True)
        elif np.count_nonzero(self.classes_) != 1:
            raise ValueError("a two-step learner of several PHI classes needs its class model")
        self.estimator_ = None
        return self


#: How far a row of probabilities may sum from 1 (float32 sums of nine numbers).
SUM_TOLERANCE = 1e-3


def _is_distribution(proba: np.ndarray) -> bool:
    return bool(np.isfinite(proba).all() and (proba >= 0).all()
                and (np.abs(proba.sum(axis=1) - 1.0) <= SUM_TOLERANCE).all())


def checked_distribution(proba: np.ndarray, source: str) -> np.ndarray:
    """``proba`` when each row is a probability distribution (finite, at least 0, summing to
    1); else a :class:`UserError` naming ``source``, the learner's file. A NaN there is read as
    "not PHI" by every threshold, so a damaged file that still loads would redact nothing."""
    if not _is_distribution(proba):
        raise UserError(f"{source}: damaged model: the learner gives values that are no "
                        "probabilities (NaN, infinite, or not summing to 1); retrain or restore it")
    return proba


def _subfolder(folder: Path, name: str) -> Path:
    path = Path(folder) / name
    path.mkdir(exist_ok=True)
    return path


#: The learner file each kind writes.
LEARNER_FILES = {"xgboost": "learner.ubj.gz", "trees": "learner.json"}
#: xgboost files read: compressed UBJSON, and plain UBJSON as older model files hold.
XGBOOST_FILES = ("learner.ubj.gz", "learner.ubj")
#: Every learner file name ``model.json`` may give.
KNOWN_FILES = frozenset(LEARNER_FILES.values()) | frozenset(XGBOOST_FILES)
#: The most bytes a compressed learner file may unpack to (a file that unpacks to more is damaged
#: or hostile, not a model). The shipped ones unpack to under 1 MB;
#: every worker process would hold what one unpacks to.
MAX_LEARNER_BYTES = 1 << 28


def learner_path(folder: Path, name) -> Path:
    """``folder / name`` when ``name`` is a learner file name and the file is inside ``folder``.

    ``model.json`` is as untrusted as any input: a name such as ``../../x`` or a link leading
    out of the folder is refused, and so are skops files (skops
    can name code to run).
    """
    folder = Path(folder)
    if name == "learner.skops":
        raise UserError(f"{folder / name}: skops learner files are no longer read (a skops file "
                        "can name code to run); retrain this model with this itdeid")
    if name not in KNOWN_FILES:
        raise UserError(f"{folder / 'model.json'}: learner file {name!r} is not one of "
                        f"{', '.join(sorted(KNOWN_FILES))}")
    path = model_part(folder, name)
    if not path.is_file():
        raise UserError(f"{path}: learner file missing")
    return path


def _unpacked(path: Path) -> bytearray:
    """The UBJSON bytes of the compressed learner file ``path``, at most
    :data:`MAX_LEARNER_BYTES` of them; a damaged or oversized file is a UserError."""
    try:
        packed = path.read_bytes()
        unpack = zlib.decompressobj(wbits=31)          # gzip framing
        raw = unpack.decompress(packed, MAX_LEARNER_BYTES + 1)
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror or type(error).__name__})") from None
    except zlib.error:
        raise UserError(f"{path}: not a readable compressed model (damaged gzip data)") from None
    if len(raw) > MAX_LEARNER_BYTES or unpack.unconsumed_tail:
        raise UserError(f"{path}: unpacks to more than {MAX_LEARNER_BYTES >> 20} MiB; not a model file")
    if not unpack.eof:
        raise UserError(f"{path}: not a readable compressed model (truncated)")
    return bytearray(raw)


def _load_booster(path: Path, n_classes: int, n_features: int, logistic: bool = False):
    """An ``XGBClassifier`` around the booster of ``path``, checked to give ``n_classes``
    probabilities from ``n_features`` columns, or with ``logistic`` one probability (of the
    second of two classes); a truncated or foreign file is a UserError."""
    import xgboost
    booster = xgboost.Booster()
    try:
        check_size(path)        # before xgboost or the gzip reader reads any of it
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror or type(error).__name__})") from None
    try:
        booster.load_model(_unpacked(path) if path.suffix == ".gz" else str(path))
        width = booster.num_features()
        proba = booster.inplace_predict(np.zeros((1, width), dtype=np.float32))
    except (xgboost.core.XGBoostError, ValueError):     # ValueError: bytes that are not UBJSON text
        raise UserError(f"{path}: not a readable xgboost model (truncated or damaged)") from None
    if width != n_features or np.shape(proba) != ((1,) if logistic else (1, n_classes)):
        raise UserError(f"{path}: an xgboost model of {width} features and {np.shape(proba)[-1]} "
                        f"classes, but the model has {n_features} features and {n_classes} classes")
    if not np.isfinite(proba).all():
        raise UserError(f"{path}: damaged xgboost model (it gives non-finite probabilities)")
    estimator = xgboost.XGBClassifier()
    estimator._Booster = booster
    estimator.n_classes_ = n_classes
    return estimator
