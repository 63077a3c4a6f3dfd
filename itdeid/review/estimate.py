"""How much PHI is left: two estimates from a review, side by side.

**From the reviewed sample, weighted by its design** (:func:`design_estimate`). A gold PHI
instance of a reviewed note that no predicted span overlaps is a miss. The risk stratum and the
random stratum are estimated apart and added (stratified expansion): a stratum of ``N`` notes of
which ``n`` were reviewed, with ``m`` misses in all, contributes ``N * m / n`` (the reviewed
notes of a stratum are taken as a uniform sample of it; the risk stratum reviewed whole
contributes exactly what was found). The 95 % interval of each stratum is the wider of a normal
one from the notes' spread and an exact Poisson one for ``m``, both scaled by ``N / n``;
stratum intervals are added in quadrature, and the lower end is never below the misses already
found. Assumptions: the reviewer found every PHI of a reviewed note; the random draw was uniform
(it is, by construction); misses are counted by instance, where one overlapping tag finds it.

**From the model's probabilities** (:func:`model_estimate`). The batch's untagged tokens, binned
by P(PHI) when the sample was chosen, each lie in a missed PHI instance with the probability a
calibration curve gives their P(PHI). The curve is isotonic regression, over the reviewed
notes' untagged tokens, of "lies in an instance no tag overlaps" (a miss, as the first estimate
counts it) on P(PHI), each note weighted by one over its inclusion probability; its quality is
shown by cross-validation over reviewed notes (each note's tokens predicted by a curve fitted on
the others). The expected tokens of missed instances are divided by the mean tokens a missed
instance spans in the review (by the mean of all gold instances where review found no miss).
The interval comes from refitting the curve on reviewed notes drawn with replacement
(percentile bootstrap), and is never narrower than an exact Poisson bound on the missed tokens
the review found among untagged ones. Assumptions: P(PHI) means the same in the reviewed notes
as in the batch; the review found every PHI.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import chi2

Z95 = 1.959963984540054
#: What each estimate assumes, in words (the report prints them beside the numbers).
DESIGN_ASSUMPTIONS = (
    "Each reviewed note's misses (PHI the reviewer added that no tag overlapped) are weighted by "
    "how the note was sampled: the notes chosen by risk stand for themselves, the notes drawn at "
    "random stand for all the notes not chosen by risk. The interval is the wider of a normal "
    "one and an exact Poisson one. It assumes the reviewer found every PHI of a reviewed note.")
MODEL_ASSUMPTIONS = (
    "Each untagged token of the batch counts as part of a missed PHI with the probability that "
    "its P(PHI) turned out to mean in the reviewed notes (a calibration curve, each reviewed note "
    "weighted by how it was sampled, checked by cross-validation over reviewed notes), divided by "
    "the tokens a missed PHI spans. It assumes P(PHI) means the same in the reviewed notes as in "
    "the batch and that the review found every PHI; the interval comes from resampling the "
    "reviewed notes, and is never narrower than a Poisson bound on the missed tokens the review "
    "found among untagged ones.")
#: Bootstrap draws of the model-based interval.
BOOTSTRAP = 200


@dataclass
class NoteReview:
    """What review found in one reviewed note."""
    stratum: str
    misses: int                      # gold instances no predicted span overlaps
    false_alarms: int                # predicted spans no gold span overlaps
    retyped: int                     # gold instances overlapped by a prediction of another class only
    missed_tokens: int
    gold_instances: int
    gold_tokens: int
    misses_by_class: dict
    false_alarms_by_class: dict


@dataclass
class Estimate:
    """Missed PHI instances in the batch, and per 1,000 notes, with a 95 % interval."""
    total: float
    low: float
    high: float
    notes: int

    @property
    def per_1000(self) -> tuple[float, float, float]:
        k = 1000.0 / self.notes if self.notes else float("nan")
        return self.total * k, self.low * k, self.high * k


def _overlaps(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def review_note(note: dict) -> NoteReview:
    """Compare a reviewed note's corrected spans (``spans``, the gold) with the model's
    (``predicted``); tokens are counted from the note's stored tokens where it has them."""
    gold, predicted = note["spans"], note["predicted"]
    misses, retyped, by_class, alarms = [], 0, {}, {}
    for g in gold:
        hit = [p for p in predicted if _overlaps(g, p)]
        if not hit:
            misses.append(g)
            by_class[g[2]] = by_class.get(g[2], 0) + 1
        elif all(p[2] != g[2] for p in hit):
            retyped += 1
    false = [p for p in predicted if not any(_overlaps(p, g) for g in gold)]
    for p in false:
        alarms[p[2]] = alarms.get(p[2], 0) + 1
    tokens = note.get("tokens") or []

    def tokens_in(spans):
        return sum(1 for t in tokens if any(_overlaps(t, s) for s in spans)) if tokens else len(spans)
    return NoteReview(note["stratum"], len(misses), len(false), retyped, tokens_in(misses), len(gold),
                      tokens_in(gold), by_class, alarms)


def _poisson_interval(m: int) -> tuple[float, float]:
    low = 0.0 if m == 0 else chi2.ppf(0.025, 2 * m) / 2
    return low, chi2.ppf(0.975, 2 * m + 2) / 2


def design_estimate(reviews: list[NoteReview], strata: dict[str, int], notes: int) -> Estimate:
    """The design-weighted estimate of the batch's missed instances (module docstring);
    ``strata``: each stratum's size in the batch, ``notes``: the batch's notes."""
    total, found, half_widths = 0.0, 0, []
    for name, size in strata.items():
        m = np.array([r.misses for r in reviews if r.stratum == name], dtype=np.float64)
        n = len(m)
        if size == 0:
            continue
        if n == 0:       # a stratum with no note reviewed: nothing can be said of it
            return Estimate(float("nan"), float("nan"), float("nan"), notes)
        found += int(m.sum())
        scale = size / n
        total += scale * m.sum()
        if n == size:
            continue
        fpc = 1 - n / size
        normal = Z95 * math.sqrt(size * size * fpc * (m.var(ddof=1) if n > 1 else m.sum()) / n)
        low, high = _poisson_interval(int(m.sum()))
        poisson = max(scale * m.sum() - scale * low, scale * high - scale * m.sum()) * math.sqrt(fpc)
        half_widths.append(max(normal, poisson))
    half = math.sqrt(sum(h * h for h in half_widths))
    return Estimate(total, max(found, total - half), total + half, notes)


def _calibration_data(notes: list[dict]):
    """Per reviewed note, its untagged tokens' P(PHI), whether each lies in a PHI instance the
    model missed whole (a gold span no predicted span overlaps: a miss as the design-based
    estimate counts it), and the note's weight, one over its inclusion probability (the notes
    chosen by risk would otherwise teach the curve that P(PHI) means more than it does)."""
    data = []
    for note in notes:
        tokens = note.get("tokens") or []
        if not tokens:
            continue
        p = np.array([t[2] for t in tokens], dtype=np.float64)
        missed = [g for g in note["spans"] if not any(_overlaps(g, q) for q in note["predicted"])]
        in_miss = np.array([any(_overlaps(t, g) for g in missed) for t in tokens], dtype=bool)
        tagged = np.array([any(_overlaps(t, q) for q in note["predicted"]) for t in tokens], dtype=bool)
        weight = 1.0 / float(note.get("probability") or 1.0)
        data.append((p[~tagged], in_miss[~tagged], weight))
    return data


def _fit(sample):
    """The isotonic curve of ``sample``'s (P(PHI), in a missed instance, weight) notes."""
    from sklearn.isotonic import IsotonicRegression
    p = np.concatenate([d[0] for d in sample])
    y = np.concatenate([d[1] for d in sample]).astype(np.float64)
    w = np.concatenate([np.full(len(d[0]), d[2]) for d in sample])
    return IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(p, y, sample_weight=w)


def calibration_curve(notes: list[dict], folds: int = 5, seed: int = 0):
    """Out-of-fold calibration of the reviewed notes' untagged tokens: ``(p, predicted, missed)``
    arrays, each token's P(PHI), the curve's value for it from a curve fitted on the other
    notes' tokens (notes dealt to ``folds`` parts at random), and whether it lies in a missed
    instance; None without reviewed tokens."""
    data = _calibration_data(notes)
    if len(data) < 2:
        return None
    part = np.random.default_rng(seed).permutation(len(data)) % min(folds, len(data))
    p_all, fit_all, y_all = [], [], []
    for f in np.unique(part):
        train = [d for d, k in zip(data, part) if k != f]
        test = [d for d, k in zip(data, part) if k == f]
        curve = _fit(train)
        for p, y, _ in test:
            p_all.append(p)
            fit_all.append(curve.predict(p) if len(p) else p)
            y_all.append(y)
    return np.concatenate(p_all), np.concatenate(fit_all), np.concatenate(y_all)


def model_estimate(notes: list[dict], untagged: dict, reviews: list[NoteReview], population: int,
                   seed: int = 0) -> Estimate | None:
    """The model-based estimate (module docstring) from the reviewed ``notes`` and the batch's
    ``untagged`` token bins (:class:`itdeid.review.sample.Untagged` as a dict); None without
    reviewed tokens."""
    data = _calibration_data(notes)
    if not data:
        return None
    counts = np.asarray(untagged["counts"], dtype=np.float64)
    sums = np.asarray(untagged["sums"], dtype=np.float64)
    mean_p = np.divide(sums, counts, out=np.zeros_like(sums), where=counts > 0)
    missed = [r for r in reviews if r.misses]
    span = (sum(r.missed_tokens for r in missed) / sum(r.misses for r in missed) if missed else
            sum(r.gold_tokens for r in reviews) / max(sum(r.gold_instances for r in reviews), 1))
    span = max(span, 1.0)

    def expected(sample):
        return float((counts * _fit(sample).predict(mean_p)).sum()) / span
    total = expected(data)
    rng = np.random.default_rng(seed)
    draws = [expected([data[i] for i in rng.integers(0, len(data), len(data))]) for _ in range(BOOTSTRAP)]
    low, high = np.percentile(draws, [2.5, 97.5])
    # a curve fitted on few PHI tokens can say "none left" everywhere: the PHI tokens the review
    # found among untagged ones bound the rate from above (exact Poisson), whatever the curve says
    found = int(sum(d[1].sum() for d in data))
    seen = sum(len(d[1]) for d in data)
    rate_high = _poisson_interval(found)[1] / max(seen, 1)
    high = max(high, rate_high * counts.sum() / span)
    found_misses = sum(r.misses for r in reviews)      # the batch holds at least these
    total = max(total, found_misses)
    return Estimate(total, float(max(min(low, total), found_misses)), float(max(high, total)), population)
