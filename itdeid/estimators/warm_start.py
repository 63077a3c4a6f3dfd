"""A model made ready to tag in a fresh process: the start-up a user tagging one note waits for.

Loading a model is cheap; what makes the first note slow is what each process builds once, on
the first note that needs it: the templates' Hyperscan databases (:mod:`itdeid.templates.prefilter`,
about a second), the word tables, the misspelling index, the frequency and census tables. The
batch tool (:func:`itdeid.batch.settings.load_tagger`) and ``itdeid tag`` build it all at start,
on a made-up note (:data:`WARM_UP_NOTE`), so a worker is ready before its first chunk and what
was built can be frozen with the model. Two things make that start cheaper
(``experiments/start_up.py`` measures them):

- :func:`held_collector`: Python's cyclic garbage collector is held off while the model loads
  and warms up. Those are hundreds of thousands of objects that all live as long as the
  process, and each full pass of the collector over them while they were being made would
  walk them all again. One pass at the end frees the few cycles made
  meanwhile, and what is left is frozen: the collector's passes while tokens are made and
  dropped no longer scan the model again and again
  (``experiments/results/stage-times.md`` against ``stage-times-frozen.md``). Frozen objects are
  still freed by their reference counts.
- :func:`compile_templates_beside`: with a core to spare, the templates' prefilter compiles on
  a thread of its own while the process goes on importing scikit-learn and xgboost and loading
  the model (Hyperscan releases the interpreter's lock while it compiles).
"""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager

#: A made-up note, tagged once after loading: a title and a name, a place, a date, a phone
#: number, a relation word, a measurement and misspelled words.
WARM_UP_NOTE = ("Pt seen by Dr. Xample at Sampleton Hospital on 3/4/2090, BP 120/80.\n"
                "Wife Ann called 555-0100 at 2:30pm. Quikcly ambulatd, tolerting diet.\n")


@contextmanager
def held_collector():
    """Hold the collector off for the ``with`` block; when it ends without an error, collect
    once and freeze what is left (see the module docstring). The collector is left as it was
    found, also when the block fails."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.collect()
        gc.freeze()
    finally:
        if enabled:
            gc.enable()


@contextmanager
def starting(alone: bool):
    """:func:`held_collector` for a model's loading and warm-up in the ``with`` block, and where
    this process is the only one tagging (``alone``) and has a core to spare, the templates'
    prefilter compiling beside it (:func:`compile_templates_beside`), joined at the end. A
    block that fails (a bad model, a stop) does not wait for the compile: the thread is a
    daemon, and a scan meanwhile waits for it anyway."""
    with held_collector():
        compiling = compile_templates_beside() if alone and cores() > 1 else None
        yield
        if compiling is not None:
            compiling.join()


def warm_up(model) -> None:
    """Tag :data:`WARM_UP_NOTE` once, so that what the first note builds is built now."""
    from itdeid.document import Document
    model.predict([Document("warm-up", WARM_UP_NOTE)])


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:          # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def compile_templates_beside():
    """Register the package's templates (the identifier, 'plain', regex and measure ones) and
    start compiling their Hyperscan prefilter on a thread
    (:func:`itdeid.templates.prefilter.compile_in_background`), which runs beside the imports and the
    model's loading where it used to wait for the warm-up's first note, so on two cores the
    first note is tagged sooner. Callers start it only with a core to spare: on one core the two
    threads take more CPU than one, and a pool's workers each have a core of their own to fill. Returns the
    thread to join, or None where there is no Hyperscan."""
    from itdeid.templates import prefilter
    from itdeid.featurize import regex_templates
    from itdeid.passes.identifiers import identifier_templates, plain_templates
    from itdeid.featurize.measures import measure_templates
    identifier_templates(), plain_templates(), regex_templates(), measure_templates()
    return prefilter.compile_in_background()
