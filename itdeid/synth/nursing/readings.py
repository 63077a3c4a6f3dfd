"""The measurement slots of the nursing phrases: readings, many shaped like dates, none PHI.

A nursing note is full of numbers written the way dates, ranges and phones are: ventilator
settings 'PS 10/5/50%' and 'A/C 700x12/5/40%', blood gases '7.32/45/80', pain '6/10', cultures
'2/4 bottles', ranges '60-80s', pressures '120/60', clock times '0400'. A model trained on
discharge summaries takes them for dates (:mod:`itdeid.featurize.measures` is the feature side of this), so
the generator writes them often and never as PHI. Each slot of :data:`MEASURES` is a function
of the note's random stream, so a slot draws the same as it always did.
"""
from __future__ import annotations

import random


def _range(r: random.Random, lo: int, hi: int, step: int) -> str:
    a = r.randrange(lo, hi, step)
    return f"{a}-{a + step * r.randint(1, 3)}{'s' if r.random() < 0.4 else ''}"


def _vent(r: random.Random) -> str:
    peep, fio2 = r.choice((5, 5, 5, 8, 10, 12)), r.randrange(30, 105, 5)
    ps, tv, rate = r.choice((5, 8, 10, 10, 12, 15, 18, 20)), r.randrange(400, 850, 50), r.randint(8, 22)
    return r.choice((f"PS {ps}/{peep}/{fio2}%", f"PS {ps}/{peep}/{fio2}%",
                     f"A/C {tv}x{rate}/{peep}/{fio2}%", f"A/C {tv}x{rate}/{peep}/{fio2}%",
                     f"CPAP {peep}/{fio2}%", f"SIMV {tv}x{rate}/{peep}/{fio2}% PS {ps}",
                     f"CPAP+PS {ps}/{peep}", f"AC {tv}x{rate} peep {peep} fio2 {fio2}%",
                     f"PSV {ps}/{peep} {fio2}%"))


def _abg(r: random.Random) -> str:
    gas = f"7.{r.randint(20, 49)}/{r.randint(28, 70)}/{r.randint(55, 250)}"
    return gas + (f"/{r.randint(16, 34)}/{r.randint(-8, 6)}" if r.random() < 0.4 else "")


def _decimal(lo: float, hi: float, places: int = 1):
    return lambda r: f"{r.uniform(lo, hi):.{places}f}"


#: Measurement slots of the phrases (none is PHI), each a function of the random stream.
MEASURES = {
    "pupil": lambda r: r.choice(("2", "3", "3-2", "4-3", "2-1")),
    "propofol": lambda r: str(r.randrange(10, 65, 5)), "gcs": lambda r: str(r.randint(3, 15)),
    "pain": lambda r: f"{r.randint(0, 10)}/10", "n": lambda r: str(r.randint(1, 5)),
    "fent": lambda r: str(r.randrange(25, 300, 25)),
    "hr_range": lambda r: _range(r, 50, 130, 10), "sbp_range": lambda r: _range(r, 80, 170, 10),
    "map_range": lambda r: _range(r, 55, 90, 5), "cvp_range": lambda r: _range(r, 8, 24, 2),
    "glu_range": lambda r: _range(r, 70, 300, 10).rstrip("s"),
    "tv_range": lambda r: _range(r, 250, 700, 50).rstrip("s"),
    "sat_range": lambda r: f"{r.randint(88, 95)}-{r.randint(96, 100)}%",
    "rr_range": lambda r: _range(r, 12, 34, 2),
    "bp": lambda r: f"{r.randint(80, 180)}/{r.randint(40, 95)}",
    "pa": lambda r: f"{r.randint(25, 70)}/{r.randint(10, 35)}",
    "clock": lambda r: r.choice((f"{r.randint(0, 23):02d}{r.choice(('00', '30', '15', '45'))}",
                                  f"{r.randint(1, 12)}{r.choice(('am', 'pm', 'a', 'p'))}",
                                  f"{r.randint(1, 12)}:{r.choice(('00', '30'))}")),
    "levo": _decimal(0.02, 0.4, 2), "dopa": lambda r: str(r.randint(2, 20)),
    "k": _decimal(2.9, 5.6), "kcl": lambda r: r.choice(("20", "40", "60")), "mg": _decimal(1.2, 2.8),
    "ci": _decimal(1.5, 4.0), "cvp": lambda r: str(r.randint(2, 22)),
    "hep": lambda r: str(r.randrange(500, 1650, 50)), "ptt": lambda r: str(r.randint(30, 120)),
    "cks": lambda r: str(r.randint(50, 2000)), "trop": _decimal(0.01, 20, 2),
    "hct": _decimal(19, 40), "vent": _vent, "abg": _abg,
    "sat": lambda r: str(r.randint(88, 100)), "lpm": lambda r: str(r.randint(2, 6)),
    "fio2": lambda r: str(r.randrange(30, 105, 5)), "rsbi": lambda r: str(r.randint(20, 140)),
    "tv": lambda r: str(r.randrange(250, 700, 10)), "peep": lambda r: str(r.randint(5, 15)),
    "tf": lambda r: str(r.randrange(10, 85, 5)), "resid": lambda r: str(r.randrange(0, 160, 10)),
    "glu": lambda r: str(r.randint(70, 320)), "pct": lambda r: str(r.randrange(10, 110, 25)),
    "uo": lambda r: _range(r, 20, 150, 10).rstrip("s"),
    "lasix": lambda r: r.choice(("20", "40", "80", "100")),
    "io": lambda r: (f"{r.choice(('+', '-', 'neg ', 'pos '))}{r.randint(1, 30) * 100}"
                     f"{r.choice(('', 'cc', 'ml'))}"),
    "bun": lambda r: str(r.randint(10, 120)), "cr": _decimal(0.5, 6.0),
    "cvvh": lambda r: str(r.randrange(50, 275, 25)), "tmax": _decimal(98.0, 103.5),
    "bottles": lambda r: (lambda n: f"{r.randint(1, n)}/{n}")(r.choice((2, 4, 4))),
    "trough": lambda r: str(r.randint(5, 30)), "wbc": _decimal(2.0, 30.0),
    "ins": _decimal(0.5, 15.0), "inr": _decimal(1.0, 4.5), "plt": lambda r: str(r.randint(20, 450)),
    "dil": lambda r: r.choice(("0.5", "1", "2")), "ve": _decimal(5.0, 15.0),
}
